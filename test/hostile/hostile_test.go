// Package hostile runs the built cmp-defaults binary on hostile input: each
// case must fail closed (exit code, nothing on stdout, a clear message on
// stderr), within 2 s and under 256 MiB of memory unless a case says
// otherwise; no case may run git, ssh or any other program.
package hostile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var bin, binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hostile")
	if err != nil {
		panic(err)
	}
	binDir = dir
	bin = filepath.Join(dir, "cmp-defaults")
	if other := os.Getenv("HOSTILE_BIN"); other != "" {
		// Another build (an older release) to show which cases it fails.
		if err := os.Symlink(other, bin); err != nil {
			panic(err)
		}
	} else {
		build := exec.Command("go", "build", "-o", bin, "../../cmd/cmp-defaults")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building cmp-defaults:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type hostileCase struct {
	name  string            // what it is
	files map[string]string // repository content; "->target" makes a symlink
	setup func(t *testing.T, repo string)
	app   string   // app path inside the repository (working directory)
	args  []string // command line
	env   []string
	envFn func(repo string) []string // more env that needs the repository's path
	want  string                     // expected text on stderr
	code  int                        // expected exit code

	stdout  string        // "full": /dev/full; "closed": closed
	oneLine bool          // the reason must be one line
	maxTime time.Duration // default 2 s
	maxRSS  int64         // MiB, default 256
}

var billionLaughs = `apiVersion: v1
kind: ConfigMap
metadata: {name: lol}
data:
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
  h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
  i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

const es = "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: x}\nspec: {data: [{secretKey: k, remoteRef: {key: k}}]}\n"

var chart = map[string]string{
	"app/Chart.yaml":          "apiVersion: v2\nname: app\nversion: 0.1.0\n",
	"app/templates/es.yaml":   es,
	"outside-secret.txt":      "not for Argo CD",
	"app/values-ok.yaml":      "a: 1\n",
	"app/templates/_h.tpl":    "",
	"app/.helmignore":         "",
	"app/templates/NOTES.txt": "",
}

func with(base map[string]string, extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func generateEnv(path string, params string) []string {
	env := []string{"ARGOCD_APP_NAME=app", "ARGOCD_APP_NAMESPACE=ns", "ARGOCD_APP_SOURCE_PATH=" + path,
		"ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0", "KUBE_VERSION=1.34.0"}
	if params != "" {
		env = append(env, "ARGOCD_APP_PARAMETERS="+params)
	}
	return env
}

var cases = []hostileCase{
	{name: "YAML alias expansion (billion laughs)", files: map[string]string{"in.yaml": billionLaughs},
		args: []string{"fill", "in.yaml"}, want: "excessive aliasing", code: 1},
	{name: "deep YAML nesting", files: map[string]string{"in.yaml": "apiVersion: v1\nkind: A\nx: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"},
		args: []string{"fill", "in.yaml"}, want: "in.yaml: document 1 (line 1)", code: 1},
	{name: "deep JSON nesting", files: map[string]string{"in.json": `{"apiVersion":"v1","kind":"A","x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}"},
		args: []string{"fill", "in.json"}, want: "in.json: document 1 (line 1)", code: 1},
	{name: "input over the size limit", files: map[string]string{"in.yaml": strings.Repeat(es+"---\n", 100)},
		args: []string{"fill", "in.yaml"}, env: []string{"CMP_DEFAULTS_MAX_INPUT_BYTES=4096"}, want: "in.yaml: input is larger than 4096 bytes", code: 1},
	{name: "source over the size limit (directory)", files: map[string]string{"app/a.yaml": strings.Repeat(es+"---\n", 100)},
		app: "app", args: []string{"generate"}, env: append(generateEnv("app", ""), "CMP_DEFAULTS_MAX_INPUT_BYTES=4096"), want: "more than 4096 bytes", code: 1},
	{name: "too many documents", files: map[string]string{"in.yaml": strings.Repeat(es+"---\n", 20)},
		args: []string{"fill", "in.yaml"}, env: []string{"CMP_DEFAULTS_MAX_DOCUMENTS=10"}, want: "more than 10 documents", code: 1},
	{name: "binary garbage", files: map[string]string{"in.yaml": "\x00\x01\x02\xff\xfe garbage: [\x00"},
		args: []string{"fill", "in.yaml"}, want: "in.yaml: document 1 (line 1)", code: 1},
	{name: "values file escaping the repository", files: chart, app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"values-files","array":["../../../../../../../etc/passwd"]}]`), want: "outside the repository root", code: 1},
	{name: "absolute values file path", files: chart, app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"values-files","array":["/etc/passwd"]}]`), want: "/etc/passwd", code: 1},
	{name: "values file symlinked out of the repository", files: with(chart, map[string]string{"app/v.yaml": "->/etc/passwd"}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"values-files","array":["v.yaml"]}]`), want: "outside the repository root", code: 1},
	{name: "chart template symlinked out of the repository", files: with(chart, map[string]string{"app/templates/leak.yaml": "->/etc/hostname"}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "outside the repository root", code: 1},
	{name: "manifest symlinked out of the repository", files: map[string]string{"app/es.yaml": es, "app/leak.yaml": "->/etc/passwd"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "outside the repository root", code: 1},
	{name: "kustomize resource outside the repository", files: map[string]string{"repo/app/kustomization.yaml": "resources: [../../secret.yaml]\n", "secret.yaml": es}, app: "repo/app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "outside the repository root", code: 1},
	{name: "kustomize remote base", files: map[string]string{"app/kustomization.yaml": "resources:\n- github.com/evil/repo//base?ref=main\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote", code: 1},
	{name: "Helm template recursion", files: with(chart, map[string]string{"app/templates/_h.tpl": `{{- define "loop" -}}{{ include "loop" . }}{{- end -}}`, "app/templates/x.yaml": `{{ include "loop" . }}`}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "app/templates", code: 1},
	{name: "malformed ARGOCD_APP_PARAMETERS", files: chart, app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":`), want: "ARGOCD_APP_PARAMETERS is not a JSON array", code: 1},
	{name: "parameters as shell code", files: chart, app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"release-name","string":"$(touch /tmp/pwned)"}]`), want: `release name "$(touch /tmp/pwned)"`, code: 1},
	{name: "profile linked out of the profiles directory", files: map[string]string{"in.yaml": es, "profiles/p.yaml": "->/etc/passwd"},
		args: []string{"fill", "--profiles-dir", "profiles", "in.yaml"}, want: "outside the profiles directory", code: 1},
	{name: "oversized profile", files: map[string]string{"in.yaml": es, "profiles/p.yaml": "apiVersion: cmp-defaults.io/v1alpha1\n#" + strings.Repeat("x", 9<<20) + "\n"},
		args: []string{"fill", "--profiles-dir", "profiles", "in.yaml"}, want: "more than the 8388608 a profile may have", code: 1},
	{name: "deadline", files: map[string]string{"app/es.yaml": es}, app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=1ns"), want: "gave up after 1ns while", code: 1},
	{name: "empty application", files: map[string]string{"app/only-comments.yaml": "# nothing\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "refusing to print an empty result", code: 1},
	{name: "operator without version", files: map[string]string{"in.yaml": es},
		args: []string{"fill", "--operator", "external-secrets", "in.yaml"}, want: "write NAME@VERSION", code: 2},
}

func TestHostileInput(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

// runCase builds the repository of tc, runs the binary in it and checks
// that it failed closed: the exit code, nothing on stdout, a one-line
// reason on stderr, within the time and memory bounds, no program run.
func runCase(t *testing.T, tc hostileCase) {
	repo := t.TempDir()
	for name, content := range tc.files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tc.setup != nil {
		tc.setup(t, repo)
	}
	// git and ssh that leave a marker: nothing may ever run them.
	bin, tmp := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	for _, tool := range []string{"git", "ssh", "helm", "kustomize"} {
		script := "#!/bin/sh\necho " + tool + " \"$@\" >> " + marker + "\n"
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	args := tc.args
	name := bin + string(filepath.Separator) + "cmp"
	if err := os.Symlink(filepath.Join(binDir, "cmp-defaults"), name); err != nil {
		t.Fatal(err)
	}
	maxTime, maxRSS := 2*time.Second, int64(256)
	if tc.maxTime > 0 {
		maxTime = tc.maxTime
	}
	if tc.maxRSS > 0 {
		maxRSS = tc.maxRSS
	}
	// A run that hangs is killed, and fails the time check.
	ctx, cancel := context.WithTimeout(context.Background(), maxTime+5*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	switch tc.stdout {
	case "closed":
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `exec "$0" "$@" >&-`, name}, args...)...)
	case "full":
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `exec "$0" "$@" >/dev/full`, name}, args...)...)
	default:
		cmd = exec.CommandContext(ctx, name, args...)
	}
	cmd.Dir = filepath.Join(repo, tc.app)
	env := tc.env
	if tc.envFn != nil {
		env = append(append([]string{}, env...), tc.envFn(repo)...)
	}
	cmd.Env = append([]string{"PATH=" + bin + string(filepath.ListSeparator) + os.Getenv("PATH"), "HOME=" + repo, "TMPDIR=" + tmp}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != tc.code {
		t.Errorf("exit code %d, want %d; stderr: %.2000s", code, tc.code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout is not empty: %.200q", stdout.String())
	}
	if !strings.Contains(stderr.String(), tc.want) {
		t.Errorf("stderr does not say %q:\n%.2000s", tc.want, stderr.String())
	}
	if tc.oneLine {
		var reasons []string
		for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			if !strings.HasPrefix(l, "Warning: ") {
				reasons = append(reasons, l)
			}
		}
		if len(reasons) != 1 || len(reasons[0]) > 2000 {
			t.Errorf("want a one-line reason on stderr (at most 2000 bytes), got %d lines, %d bytes:\n%.3000s", len(reasons), stderr.Len(), stderr.String())
		}
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.Logf("measured: exit %d, %.2f s, peak RSS %d MiB, stdout %d bytes", code, took.Seconds(), ru.Maxrss>>10, stdout.Len())
	}
	if took > maxTime {
		t.Errorf("took %v, more than %v", took, maxTime)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > maxRSS<<10 { // KiB
		t.Errorf("peak RSS %d MiB, more than %d MiB", ru.Maxrss>>10, maxRSS)
	}
	if _, err := os.Stat("/tmp/pwned"); err == nil {
		t.Fatal("a parameter was run as a command")
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a program was run: %s", b)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "kustomize-*")); len(left) > 0 {
		t.Errorf("clones left behind: %v", left)
	}
}
