// Package hostile runs the built cmp-defaults binary on hostile input: each
// case must fail closed (exit code, nothing on stdout, a clear message on
// stderr), within 2 s and under 256 MiB of memory, parent and worker
// together, unless a case says otherwise; no case may run git, ssh or any other program.
package hostile

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
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

	stdout string // "full": /dev/full; "pipe-closed": a pipe whose reader is gone
	// ulimitKB, when set, limits the address space (ulimit -v), so that
	// the Go runtime itself runs out of memory and aborts.
	ulimitKB int
	oneLine  bool          // the reason must be one line
	clean    bool          // stderr: no control bytes or runtime trace, under 16 KiB (checkClean)
	maxTime  time.Duration // default 2 s
	maxRSS   int64         // MiB, default 256
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
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"release-name","string":"$(touch /tmp/pwned)"}]`), want: `parameter release-name "$(touch /tmp/pwned)"`, code: 1},
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
// It returns stderr.
func runCase(t *testing.T, tc hostileCase) string {
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
	switch {
	case tc.ulimitKB > 0:
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d; exec "$0" "$@"`, tc.ulimitKB), name}, args...)...)
	case tc.stdout == "full":
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
	if tc.stdout == "pipe-closed" {
		cmd.Stdout = closedPipe(t)
	}
	start := time.Now()
	peak, err := supervisor.RunMeasured(cmd)
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
		limit := 2000
		if tc.clean {
			limit = 16 << 10
		}
		if len(reasons) != 1 || len(reasons[0]) > limit {
			t.Errorf("want a one-line reason on stderr (at most %d bytes), got %d lines, %d bytes:\n%.3000s", limit, len(reasons), stderr.Len(), stderr.String())
		}
	}
	if tc.clean {
		checkClean(t, stderr.Bytes())
	}
	t.Logf("measured: exit %d, %.2f s, peak RSS of parent + worker %d MiB, stdout %d bytes", code, took.Seconds(), peak>>20, stdout.Len())
	if took > maxTime {
		t.Errorf("took %v, more than %v", took, maxTime)
	}
	if peak > maxRSS<<20 {
		t.Errorf("peak RSS of parent + worker %d MiB, more than %d MiB", peak>>20, maxRSS)
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
	return stderr.String()
}

// laughs is a ConfigMap whose aliases nest levels deep, nine per level.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i < levels; i++ {
		prev, cur := string(rune('a'+i-1)), string(rune('a'+i))
		fmt.Fprintf(&b, "  %s: &%s [%s]\n", cur, cur, strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ","))
	}
	return b.String()
}

// bigAlias is an object with one large scalar repeated by 99 aliases.
func bigAlias(size int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  a0: &big \"" + strings.Repeat("x", size) + "\"\n")
	for i := 1; i < 100; i++ {
		fmt.Fprintf(&b, "  a%d: *big\n", i)
	}
	return b.String()
}

// zeroArchive writes a chart archive holding one file of n zero bytes.
func zeroArchive(t *testing.T, path string, n int64) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		data []byte
	}{{"dep/Chart.yaml", []byte("apiVersion: v2\nname: dep\nversion: 0.1.0\n")}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg})
		tw.Write(f.data)
	}
	tw.WriteHeader(&tar.Header{Name: "dep/files/zeros.bin", Mode: 0o644, Size: n, Typeflag: tar.TypeReg})
	zero := make([]byte, 1<<20)
	for left := n; left > 0; left -= int64(len(zero)) {
		if left < int64(len(zero)) {
			zero = zero[:left]
		}
		tw.Write(zero)
	}
	tw.Close()
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sparse(name string, size int64) func(t *testing.T, repo string) {
	return func(t *testing.T, repo string) {
		p := filepath.Join(repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
	}
}

// userProfile is a profile for the test kind widgets.example.com/v1 Widget.
func userProfile(rules string) string {
	return "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: widgets\nversion: v1.0.0\nresources:\n- group: widgets.example.com\n  version: v1\n  kind: Widget\n" + rules
}

const widget = "apiVersion: widgets.example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {a: 1}\n"

func widgetEnv(extra ...string) []string {
	return append([]string{"ARGOCD_APP_NAME=app", "ARGOCD_APP_SOURCE_PATH=app", "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=widgets@1.0.0",
		"CMP_DEFAULTS_PROFILES_DIR=../profiles"}, extra...)
}

func kust(entries string) map[string]string {
	return map[string]string{"app/kustomization.yaml": entries, "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"}
}

var round2 = []hostileCase{
	// 1. kustomize never fetches: every remote shape in every key is refused.
	{name: "kustomize generator naming a GitHub repository", files: kust("resources: [cm.yaml]\ngenerators:\n- github.com/evil/repo\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote source not supported", code: 1},
	{name: "kustomize scp-style resource", files: kust("resources:\n- alice@127.0.0.1:repo.git\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote source not supported", code: 1},
	{name: "kustomize resource shaped like github.com/x/y that exists locally",
		files: with(kust("resources:\n- github.com/x/y\n"), map[string]string{"app/github.com/x/y/kustomization.yaml": "resources: []\n"}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote source not supported", code: 1},
	{name: "kustomize remote component", files: kust("components:\n- https://127.0.0.1:1/c\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote source not supported", code: 1},
	{name: "kustomize remote transformer and validator", files: kust("transformers:\n- git::https://127.0.0.1:1/t\nvalidators:\n- gh:org/v\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote source not supported", code: 1},
	{name: "kustomize remote patch file", files: kust("resources: [cm.yaml]\npatches:\n- path: http://127.0.0.1:1/p.yaml\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote source not supported", code: 1},
	{name: "kustomize remote base in a nested local base", files: with(kust("resources: [base]\n"), map[string]string{"app/base/kustomization.yaml": "resources:\n- ssh://git@127.0.0.1/r.git\n"}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "remote source not supported", code: 1},

	// 2, 3. One YAML budget for every YAML that enters the process.
	{name: "kustomize resource with 9 levels of aliases (419 bytes)", files: with(kust("resources: [lol.yaml]\n"), map[string]string{"app/lol.yaml": laughs(9)}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "excessive aliasing", code: 1},
	{name: "kustomize resource with 6 levels of aliases (308 bytes)", files: with(kust("resources: [lol.yaml]\n"), map[string]string{"app/lol.yaml": laughs(6)}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "excessive aliasing", code: 1},
	{name: "kustomize inline patch with aliases", files: kust("resources: [cm.yaml]\npatches:\n- patch: |\n" + indent(laughs(9), "    ") + "\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "excessive aliasing", code: 1},
	{name: "kustomization file with aliases", files: map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\n" + strings.TrimPrefix(laughs(9), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n"), "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "excessive aliasing", code: 1},
	{name: "Helm values file with aliases", files: with(chart, map[string]string{"app/lol.yaml": laughs(9)}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"values-files","array":["lol.yaml"]}]`), want: "excessive aliasing", code: 1},
	{name: "Helm chart values.yaml with aliases", files: with(chart, map[string]string{"app/values.yaml": laughs(9)}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "excessive aliasing", code: 1},
	{name: "fill: 99 aliases of a 5 MiB scalar", files: map[string]string{"in.yaml": bigAlias(5 << 20)},
		args: []string{"fill", "in.yaml"}, want: "excessive aliasing", code: 1},
	{name: "kustomize: 99 aliases of a 1 MiB scalar", files: with(kust("resources: [big.yaml]\n"), map[string]string{"app/big.yaml": bigAlias(1 << 20)}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "excessive aliasing", code: 1},

	// 4. tpl recursion is refused, not a crash.
	{name: "Helm tpl recursion", files: with(chart, map[string]string{"app/values.yaml": "x: \"{{ tpl .Values.x . }}\"\n", "app/templates/x.yaml": "a: {{ tpl .Values.x . }}\n"}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "calls itself", code: 1, maxTime: 10 * time.Second, maxRSS: 1024},
	{name: "Helm include recursion: a short message", files: with(chart, map[string]string{"app/templates/_h.tpl": `{{- define "loop" -}}{{ include "loop" . }}{{- end -}}`, "app/templates/x.yaml": `{{ include "loop" . }}`}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "nested reference name: loop", code: 1},

	// 5. One memory budget on decompressed and generated bytes.
	{name: "chart archive decompressing past the budget", files: chart,
		setup: func(t *testing.T, repo string) {
			zeroArchive(t, filepath.Join(repo, "app/charts/dep-0.1.0.tgz"), 80<<20)
		}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "more than 67108864 bytes", code: 1},
	{name: "3 GB kustomization.yaml", setup: sparse("app/kustomization.yaml", 3<<30), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "kustomization.yaml is 3221225472 bytes", code: 1},
	{name: "fill: 1 TB sparse file", setup: sparse("in.yaml", 1<<40),
		args: []string{"fill", "in.yaml"}, want: "input is larger than", code: 1},
	{name: "kustomize: a 1 MB patch applied to 300 objects", setup: bigPatch, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "could generate 314", code: 1},
	{name: "Helm template allocating past the memory budget", files: with(chart, map[string]string{"app/templates/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  a: \"{{ range until 20000000 }}x{{ end }}\"\n"}), app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "CMP_DEFAULTS_MAX_MEMORY_BYTES=134217728"), want: "memory budget exceeded", code: 1, maxTime: 10 * time.Second, maxRSS: 512},

	// 6. One deadline for every step; linear costs.
	{name: "jq rule that never ends", files: map[string]string{"app/w.yaml": widget,
		"profiles/w.yaml": userProfile("  mutations:\n  - path: .spec.x\n    value: 1\n    when: 'last(limit(1e9; repeat(.)))'\n")}, app: "app",
		args: []string{"generate"}, env: widgetEnv("ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=1s"), want: "gave up after 1s while filling", code: 1, maxTime: 5 * time.Second},
	{name: "jq rule that builds a huge array", files: map[string]string{"app/w.yaml": widget,
		"profiles/w.yaml": userProfile("  mutations:\n  - path: .spec.x\n    value: 1\n    when: '[range(1e12)] | length > 0'\n")}, app: "app",
		args: []string{"generate"}, env: widgetEnv("ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=3s"), want: "while filling", code: 1, maxTime: 8 * time.Second, maxRSS: 1024},
	{name: "profile with 150,000 rules compiles in linear time", files: map[string]string{"app/w.yaml": "apiVersion: widgets.example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: text\n",
		"profiles/w.yaml": userProfile(manyRules(150000))}, app: "app",
		args: []string{"generate"}, env: widgetEnv(), want: "but the schema says an object", code: 1, maxTime: 20 * time.Second, maxRSS: 1024},
	{name: "JSON stream of 100,000 documents decodes in linear time", files: map[string]string{"in.json": strings.Repeat(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`+"\n", 99999) + "{\n"},
		args: []string{"fill", "in.json"}, want: "document 100000 (line 100000): malformed JSON", code: 1, maxTime: 10 * time.Second, maxRSS: 1024},
	{name: "FIFO in the profiles directory", files: map[string]string{"app/w.yaml": widget}, setup: func(t *testing.T, repo string) {
		os.MkdirAll(filepath.Join(repo, "profiles"), 0o755)
		if err := syscall.Mkfifo(filepath.Join(repo, "profiles", "p.yaml"), 0o644); err != nil {
			t.Fatal(err)
		}
	}, app: "app", args: []string{"generate"}, env: widgetEnv(), want: "is not a regular file", code: 1},

	// 8. A failed write is an error.
	{name: "fill to /dev/full", files: map[string]string{"in.yaml": es}, stdout: "full",
		args: []string{"fill", "--operator", "external-secrets@2.5.0", "in.yaml"}, want: "writing the output to stdout failed", code: 1},
	{name: "render to /dev/full", files: map[string]string{"app/es.yaml": es}, stdout: "full",
		args: []string{"render", "--operator", "external-secrets@2.5.0", "app"}, want: "writing the output to stdout failed", code: 1},

	// 9. The repository root cannot be widened.
	{name: "absolute ARGOCD_APP_SOURCE_PATH", files: map[string]string{"app/es.yaml": es, "app/leak.yaml": "->../../outside.yaml"}, app: "app",
		args: []string{"generate"}, envFn: func(repo string) []string {
			real, _ := filepath.EvalSymlinks(filepath.Join(repo, "app"))
			os.WriteFile(filepath.Join(repo, "..", "outside.yaml"), []byte(es), 0o644)
			return append(generateEnv("", ""), "ARGOCD_APP_SOURCE_PATH="+real)
		}, want: "is absolute", code: 1},
	{name: "ARGOCD_APP_SOURCE_PATH with extra leading components", files: map[string]string{"app/es.yaml": es, "app/leak.yaml": "->../../outside.yaml"}, app: "app",
		args: []string{"generate"}, envFn: func(repo string) []string {
			real, _ := filepath.EvalSymlinks(filepath.Join(repo, "app"))
			tmp, _ := filepath.EvalSymlinks(os.TempDir())
			r, _ := filepath.Rel(tmp, real)
			return append(generateEnv("", ""), "ARGOCD_APP_SOURCE_PATH="+r)
		}, want: "ARGOCD_APP_SOURCE_PATH", code: 1},
	{name: "ARGOCD_APP_SOURCE_PATH leaving the repository", files: map[string]string{"app/es.yaml": es}, app: "app",
		args: []string{"generate"}, env: append(generateEnv("", ""), "ARGOCD_APP_SOURCE_PATH=../../app"), want: "leaves the repository", code: 1},

	// 10. Smaller holes.
	{name: "namespace parameter with a line break", files: chart, app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"namespace","string":"ns\nkind: Secret"}]`), want: "not a valid namespace name", code: 1},
	{name: "non-deterministic jq in a rule", files: map[string]string{"app/w.yaml": widget,
		"profiles/w.yaml": userProfile("  mutations:\n  - path: .metadata.annotations.at\n    value: 1\n    when: 'now > 0'\n")}, app: "app",
		args: []string{"generate"}, env: widgetEnv(), want: "now depends on the current time", code: 1},
	{name: "null map key", files: map[string]string{"in.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  ~: x\n"},
		args: []string{"fill", "in.yaml"}, want: "null key", code: 1},
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pre)
}

func manyRules(n int) string {
	var b strings.Builder
	b.WriteString("  defaults:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {path: .spec.f%d, value: %d}\n", i, i)
	}
	return b.String()
}

// bigPatch writes a kustomization of 300 ConfigMaps and a 1 MB patch that
// targets every one of them.
func bigPatch(t *testing.T, repo string) {
	var res strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&res, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm%d}\n", i)
	}
	patch := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: any}\ndata:\n  big: \"" + strings.Repeat("x", 1<<20) + "\"\n"
	files := map[string]string{
		"app/kustomization.yaml": "resources: [cms.yaml]\npatches:\n- path: patch.yaml\n  target: {kind: ConfigMap}\n",
		"app/cms.yaml":           res.String(),
		"app/patch.yaml":         patch,
	}
	for name, content := range files {
		p := filepath.Join(repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHostileRound2(t *testing.T) {
	for _, tc := range round2 {
		tc.oneLine = true // every round-2 case gives its reason on one line
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

// 7. Objects in = objects out, whatever separates the documents; a stream
// that cannot be read whole is refused. fill, render and explain agree.
func TestNoDocumentIsDropped(t *testing.T) {
	const a = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
	b := strings.Replace(a, "name: a", "name: b", 1)
	utf16 := func(s string) string {
		out := []byte{0xFF, 0xFE}
		for _, r := range s {
			out = append(out, byte(r), byte(r>>8))
		}
		return string(out)
	}
	for _, tc := range []struct {
		name, data string
		want       int // objects; 0: refused
	}{
		{"document on its separator line", a + "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n", 2},
		{"tagged separator", a + "--- !!map\n" + b, 2},
		{"list on the separator line", a + "--- [1]\n", 0},
		{"CR line ends", strings.ReplaceAll(a+"---\n"+b, "\n", "\r"), 2},
		{"NEL line breaks", strings.ReplaceAll(a+"---\n"+b, "\n", "\u0085"), 2},
		{"U+2028 line breaks", strings.ReplaceAll(a+"---\n"+b, "\n", "\u2028"), 2},
		{"UTF-16, two documents", utf16(a + "---\n" + b), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "app", "in.yaml"), []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"fill", "app/in.yaml"}, {"render", "app"}, {"explain", "-o", "json", "app/in.yaml"}} {
				cmd := exec.Command(bin, args...)
				cmd.Dir = dir
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if tc.want == 0 {
					if err == nil || stdout.Len() > 0 {
						t.Errorf("%v: want refused with empty stdout, got %v and %d bytes", args, err, stdout.Len())
					}
					continue
				}
				if err != nil {
					// Refusing is allowed, never fewer objects.
					if stdout.Len() > 0 {
						t.Errorf("%v: failed with output", args)
					}
					continue
				}
				n := strings.Count(stdout.String(), "kind: ConfigMap") + strings.Count(stdout.String(), `"kind": "ConfigMap"`)
				if n != tc.want {
					t.Errorf("%v: %d objects out, %d in:\n%s", args, n, tc.want, stdout.String())
				}
			}
		})
	}
}

// A user profile that claims a built-in kind is a problem profiles lint
// --strict reports, with its file and line, as a finding (exit 3, the
// report on stdout, as audit's findings).
func TestLintFlagsBuiltinKind(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "profiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	evil := "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: evil\nversion: v1.0.0\nresources:\n- group: apps\n  version: v1\n  kind: Deployment\n  mutations:\n  - path: .spec.template.spec.containers[].image\n    value: evil/image\n"
	if err := os.WriteFile(filepath.Join(dir, "profiles", "p.yaml"), []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "profiles", "lint", "--strict", "profiles")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit %v, want 3; stderr %s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "profiles/p.yaml:6: ") || !strings.Contains(stdout.String(), "apps/v1 Deployment, a built-in Kubernetes kind") {
		t.Errorf("stdout does not report the rule with its file and line: %s", stdout.String())
	}
}
