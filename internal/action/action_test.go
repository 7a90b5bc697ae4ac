package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

func newEnv(t testing.TB) *Env {
	t.Helper()
	s, err := cmpenv.SidecarFromEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Stdin: strings.NewReader(""), Sidecar: s}
}

// fill and renderOf are the use cases as the constructors make them.
func fill(o Operators, h settings.Helm, args ...string) *Fill {
	f := NewFill()
	f.Operators, f.Helm, f.Args = o, h, args
	return f
}

func renderOf(o Operators, dir string) *Render {
	r := NewRender()
	r.Operators, r.Dir = o, dir
	return r
}

// underArgoCD is generate for the plain example with the operators
// parameter set to ops.
func underArgoCD(t *testing.T, ops string) *Generate {
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	return &Generate{Environ: []string{`ARGOCD_APP_PARAMETERS=[{"name":"operators","map":` + ops + `}]`}, WorkDir: dir}
}

// The use cases run without cobra, and their errors carry the kind of
// mistake by type: cmd maps UsageError to exit 2, ConfigError to exit 1
// without a usage hint, a Result that Found to exit 3 after printing.
func TestErrorsAreTyped(t *testing.T) {
	examples := filepath.Join("..", "..", "examples")
	es := filepath.Join(examples, "plain", "externalsecret.yaml")
	eso := Operators{Refs: []string{"external-secrets@2.5.0"}}
	var usage UsageError
	var config ConfigError
	found := new(bool) // the Result found something
	for _, tc := range []struct {
		name   string
		plugin bool
		uc     interface {
			Run(context.Context, *Env) (*Result, error)
		}
		as     any
		says   string
		output bool
	}{
		{"helm flags without a chart", false, fill(eso, settings.Helm{ValuesFiles: []string{"v.yaml"}}, es), &usage, "apply to a directory argument", true},
		{"explain without operators", false, &Explain{Args: []string{es}}, &usage, "at least one --operator", false},
		{"empty field manager", false, &Check{ClusterSource: ClusterSource{Operators: eso}}, &usage, "--field-manager", false},
		{"bad reference on the command line", false, renderOf(Operators{Refs: []string{"external-secrets"}}, filepath.Join(examples, "plain")), &usage, "external-secrets", false},
		{"bad reference under Argo CD", true, underArgoCD(t, `{"external-secrets":"x"}`), &config, "parameter operators", false},
		{"unknown operator under Argo CD", true, underArgoCD(t, `{"nobody":"1.0.0"}`), &config, "cmp-defaults-profiles", false},
		{"releases that differ", false, &DiffReleases{A: "external-secrets@2.6.0", B: "external-secrets@2.7.0"}, found, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			res, err := tc.uc.Run(context.Background(), env)
			if tc.as == found {
				if err != nil || res == nil || !res.Found {
					t.Fatalf("error %v, result %+v: want a Result that found something", err, res)
				}
			} else {
				if err == nil || !errors.As(err, tc.as) {
					t.Fatalf("error %v (%T), want a %T", err, err, tc.as)
				}
				if !strings.Contains(err.Error(), tc.says) {
					t.Errorf("error %q does not say %q", err, tc.says)
				}
			}
			if got := res != nil && (len(res.Output) > 0 || res.Report != nil); got != tc.output {
				t.Errorf("wrote output: %v, want %v", got, tc.output)
			}
		})
	}
	// The same unknown release on the command line is neither: exit 1,
	// pointing at --profiles-dir.
	_, err := renderOf(Operators{Refs: []string{"nobody@1.0.0"}}, filepath.Join(examples, "plain")).Run(context.Background(), newEnv(t))
	if err == nil || errors.As(err, &usage) || errors.As(err, &config) || !strings.Contains(err.Error(), "--profiles-dir") {
		t.Errorf("unknown release on the command line: %v (%T)", err, err)
	}
}

// The profiles are read once per run: diff-releases selects twice, and a
// warning about a profiles directory is printed once.
func TestProfilesReadOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := newEnv(t)
	d := &DiffReleases{Operators: Operators{ProfileDirs: []string{dir}}, A: "external-secrets@2.6.0", B: "external-secrets@2.7.0"}
	if res, err := d.Run(context.Background(), env); err != nil || !res.Found {
		t.Fatalf("diff-releases: %v", err)
	}
	if n := strings.Count(strings.Join(env.Warnings.Lines(), "\n"), "kustomization.yaml"); n != 1 {
		t.Errorf("the warning about kustomization.yaml is printed %d times, want once:\n%s", n, env.Warnings.Lines())
	}
}
