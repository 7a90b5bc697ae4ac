package action

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/sandbox"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

const sandboxES = "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: x}\nspec:\n  data:\n  - secretKey: k\n    remoteRef: {key: k}\n"

// confineSpy stands for sandbox.Confine: it records what the command
// said it reads, reports missing as the kernel's missing layers, and only
// then writes the input files (create): a command that read its input
// before confining the process would find nothing.
type confineSpy struct {
	calls   [][]string
	missing []sandbox.Layer
	create  map[string]string
	t       *testing.T
}

func (s *confineSpy) confine(read []string) ([]sandbox.Layer, error) {
	s.calls = append(s.calls, read)
	for name, content := range s.create {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	return s.missing, nil
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// Each command that reads a source confines the worker once, naming what
// it reads (the repository root, input files, profile directories),
// before it reads any of it.
func TestCommandsConfineBeforeReading(t *testing.T) {
	eso := []string{"external-secrets@2.5.0"}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, top string) (Runner, []string, map[string]string)
	}{
		{"render: the repository root", func(t *testing.T, top string) (Runner, []string, map[string]string) {
			mkdirs(t, filepath.Join(top, "repo", ".git"), filepath.Join(top, "repo", "app"))
			r := renderOf(Operators{Refs: eso}, filepath.Join(top, "repo", "app"))
			return r, []string{filepath.Join(top, "repo")}, map[string]string{filepath.Join(top, "repo", "app", "es.yaml"): sandboxES}
		}},
		{"generate: the unpacked repository, from ARGOCD_APP_SOURCE_PATH", func(t *testing.T, top string) (Runner, []string, map[string]string) {
			app := filepath.Join(top, "repo", "apps", "one")
			mkdirs(t, app)
			g := &Generate{Environ: []string{"ARGOCD_APP_SOURCE_PATH=apps/one", "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=" + eso[0]}, WorkDir: app}
			return g, []string{filepath.Join(top, "repo")}, map[string]string{filepath.Join(app, "es.yaml"): sandboxES}
		}},
		{"fill: each file, each directory's repository root", func(t *testing.T, top string) (Runner, []string, map[string]string) {
			mkdirs(t, filepath.Join(top, "other", ".git"), filepath.Join(top, "other", "dir"))
			f := fill(Operators{Refs: eso}, settings.Helm{}, filepath.Join(top, "in.yaml"), filepath.Join(top, "other", "dir"), "-")
			return f, []string{filepath.Join(top, "in.yaml"), filepath.Join(top, "other")},
				map[string]string{filepath.Join(top, "in.yaml"): sandboxES, filepath.Join(top, "other", "dir", "es.yaml"): sandboxES}
		}},
		{"explain: the files and the profile directory", func(t *testing.T, top string) (Runner, []string, map[string]string) {
			mkdirs(t, filepath.Join(top, "profiles"))
			x := &Explain{Operators: Operators{Refs: eso, ProfileDirs: []string{filepath.Join(top, "profiles")}}, Args: []string{filepath.Join(top, "in.yaml")}}
			return x, []string{filepath.Join(top, "profiles"), filepath.Join(top, "in.yaml")}, map[string]string{filepath.Join(top, "in.yaml"): sandboxES}
		}},
		{"audit: the Application and the repository root", func(t *testing.T, top string) (Runner, []string, map[string]string) {
			mkdirs(t, filepath.Join(top, "repo", ".git"), filepath.Join(top, "repo", "app"))
			a := &Audit{Operators: Operators{Refs: eso}, Apps: []string{filepath.Join(top, "app.yaml")}, Rendering: Rendering{RepoRoot: filepath.Join(top, "repo")}, RepoURL: "https://example.com/repo.git"}
			app := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  source: {repoURL: https://example.com/repo.git, path: app}\n  ignoreDifferences:\n  - {group: external-secrets.io, kind: ExternalSecret, jsonPointers: [/spec/data]}\n"
			return a, []string{filepath.Join(top, "app.yaml"), filepath.Join(top, "repo")},
				map[string]string{filepath.Join(top, "app.yaml"): app, filepath.Join(top, "repo", "app", "es.yaml"): sandboxES}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top := realDir(t)
			env := newEnv(t)
			uc, want, create := tc.run(t, top)
			spy := &confineSpy{create: create, t: t}
			env.Confine = spy.confine
			if _, err := uc.Run(context.Background(), env); err != nil {
				t.Fatalf("run: %v", err)
			}
			if len(spy.calls) != 1 {
				t.Fatalf("confined %d times, want once", len(spy.calls))
			}
			for _, p := range want {
				if !slices.Contains(spy.calls[0], p) {
					t.Errorf("confined to %q, which leaves out %s", spy.calls[0], p)
				}
			}
		})
	}
}

// Runner is a use case.
type Runner interface {
	Run(context.Context, *Env) (*Result, error)
}

// What the kernel lacks is one warning, or with CMP_DEFAULTS_SANDBOX=require
// an error; =off confines nothing, and neither does an in-process run.
func TestSandboxSetting(t *testing.T) {
	es := filepath.Join("..", "..", "examples", "plain", "externalsecret.yaml")
	for _, tc := range []struct {
		setting  string
		inWorker bool
		calls    int
		warning  string
		err      string
	}{
		{"", true, 1, "the worker runs without Landlock (which stops reading files outside the repository and profile directories) and seccomp (which stops network sockets)", ""},
		{"require", true, 1, "", "the kernel does not provide Landlock (which stops reading files outside the repository and profile directories) and seccomp (which stops network sockets) to the sandbox, and CMP_DEFAULTS_SANDBOX=require"},
		{"off", true, 0, "", ""},
		{"", false, 0, "", ""},
	} {
		t.Run(tc.setting, func(t *testing.T) {
			s, err := cmpenv.SidecarFromEnv([]string{"CMP_DEFAULTS_SANDBOX=" + tc.setting})
			if err != nil {
				t.Fatal(err)
			}
			env := &Env{Stdin: strings.NewReader(""), Sidecar: s}
			spy := &confineSpy{missing: []sandbox.Layer{sandbox.Landlock, sandbox.Seccomp}, t: t}
			if tc.inWorker {
				env.Confine = spy.confine
			}
			_, err = fill(Operators{Refs: []string{"external-secrets@2.5.0"}}, settings.Helm{}, es).Run(context.Background(), env)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("run: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("want an error with %q, got %v", tc.err, err)
			}
			if len(spy.calls) != tc.calls {
				t.Errorf("confined %d times, want %d", len(spy.calls), tc.calls)
			}
			var sandboxWarnings []string
			for _, w := range env.Warnings.Lines() {
				if strings.Contains(w, "worker runs without") {
					sandboxWarnings = append(sandboxWarnings, w)
				}
			}
			if tc.warning == "" && len(sandboxWarnings) > 0 || tc.warning != "" && (len(sandboxWarnings) != 1 || !strings.Contains(sandboxWarnings[0], tc.warning)) {
				t.Errorf("warnings %q, want one with %q", env.Warnings.Lines(), tc.warning)
			}
		})
	}
}
