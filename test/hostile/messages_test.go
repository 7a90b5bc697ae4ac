package hostile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

// Messages: stderr keeps the reason. Warnings are capped per run with a
// count, every line of stderr is a warning, an error or an indented
// continuation (text from the repository never starts a line: no forged
// "Error:", "panic:" or "fatal error:"), and CMP_DEFAULTS_MAX_DOCUMENTS
// bounds every command. Successful runs print their whole output.
type msgCase struct {
	name  string
	files map[string]string // "\n" may be part of a name
	setup func(t *testing.T, repo string)
	app   string
	args  []string
	env   []string
	code  int
	want  []string // on stderr
	// stdoutHas is counted on stdout, which must hold it stdoutN times
	// (empty on failure).
	stdoutHas string
	stdoutN   int
	maxTime   time.Duration // default 10 s
}

// manyDuplicates is n ConfigMaps, each with a key twice.
func manyDuplicates(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata:\n  k: a\n  k: b\n", i)
	}
	return b.String()
}

// configMaps is n ConfigMaps in one stream.
func configMaps(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
	}
	return b.String()
}

// valuesConflicts is a chart whose values.yaml has n scalars (and two keys
// with line breaks) that values file over.yaml gives as maps: Helm logs one
// line per key.
func valuesConflicts(n int, template string) map[string]string {
	var vals, over strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&vals, "k%d: 1\n", i)
		fmt.Fprintf(&over, "k%d: {a: 1}\n", i)
	}
	for _, k := range []string{`"x\npanic: boom"`, `"y\nfatal error: out of memory"`, `"z\nError: forged"`} {
		vals.WriteString(k + ": 1\n")
		over.WriteString(k + ": {a: 1}\n")
	}
	files := with(chart, map[string]string{"app/values.yaml": vals.String(), "app/over.yaml": over.String()})
	if template != "" {
		files["app/templates/x.yaml"] = template
	}
	return files
}

// deprecatedBases is a kustomization of n bases, each with a field
// kustomize calls deprecated (it prints a note for each), then last.
func deprecatedBases(n int, last string) map[string]string {
	files := map[string]string{}
	res := make([]string, 0, n+1)
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("app/b%d/kustomization.yaml", i)] = "commonLabels: {a: b}\nresources: [cm.yaml]\n"
		files[fmt.Sprintf("app/b%d/cm.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
		res = append(res, fmt.Sprintf("b%d", i))
	}
	if last != "" {
		files["app/last.yaml"] = last
		res = append(res, "last.yaml")
	}
	files["app/kustomization.yaml"] = "resources: [" + strings.Join(res, ", ") + "]\n"
	return files
}

var messageCases = []msgCase{
	// Warnings never push the error out.
	{name: "150 duplicate keys, then malformed YAML", files: map[string]string{"app/cm.yaml": manyDuplicates(150) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: [unclosed\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), code: 1,
		want: []string{"Error: cm.yaml: document 151", "malformed YAML", "Warning: ... and 140 more warnings about duplicate keys"}},
	{name: "150 files with a duplicate key each, then malformed YAML", setup: func(t *testing.T, repo string) {
		for i := 0; i < 150; i++ {
			write(t, filepath.Join(repo, fmt.Sprintf("app/c%03d.yaml", i)), manyDuplicates(1))
		}
		write(t, filepath.Join(repo, "app/z.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: [unclosed\n")
	}, app: "app", args: []string{"generate"}, env: generateEnv("app", ""), code: 1,
		want: []string{"Error: z.yaml: document 1", "Warning: ... and 140 more warnings about duplicate keys"}},
	{name: "150 Helm values type conflicts, then a template that fails", files: valuesConflicts(150, `{{ fail "the real cause" }}`), app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"values-files","array":["over.yaml"]}]`), code: 1,
		want: []string{"Error: ", "the real cause", "more messages logged by Helm or kustomize"}},
	{name: "150 kustomize notes on deprecated fields, then a conflict", files: deprecatedBases(150, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c0}\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), code: 1,
		want: []string{"Error: ", "already registered id", "more messages logged by Helm or kustomize"}},

	// Text from the repository is quoted: a successful run stays one.
	{name: "file names with line breaks and crash lines, on a successful run",
		files: map[string]string{"app/x\npanic: boom.yaml": manyDuplicates(1), "app/y\nfatal error: out of memory\n.yaml": strings.ReplaceAll(manyDuplicates(1), "c0", "c1")}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), code: 0, stdoutHas: `"kind":"ConfigMap"`, stdoutN: 2,
		want: []string{`Warning: "x\npanic: boom.yaml": document 1 (line 7): key "k"`, `Warning: "y\nfatal error: out of memory\n.yaml": document 1`}},
	{name: "150 Helm values type conflicts, keys with line breaks, on a successful run", files: valuesConflicts(150, ""), app: "app",
		args: []string{"generate"}, env: generateEnv("app", `[{"name":"values-files","array":["over.yaml"]}]`), code: 0, stdoutHas: `"kind":"ExternalSecret"`, stdoutN: 1,
		want: []string{`Warning: logged while rendering: "warning: skipped value for app.`, "more messages logged by Helm or kustomize"}},
	{name: "150 kustomize notes on deprecated fields, on a successful run", files: deprecatedBases(150, ""), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), code: 0, stdoutHas: `"kind":"ConfigMap"`, stdoutN: 150,
		want: []string{`Warning: logged while rendering: "# Warning: 'commonLabels' is deprecated.`, "... and 140 more messages logged by Helm or kustomize"}},
	{name: "a forged Error: line in a file name", files: map[string]string{"app/a\nError: forged, all is well.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: [unclosed\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), code: 1,
		want: []string{`Error: "a\nError: forged, all is well.yaml": document 1 (line 1): malformed YAML`}},
	{name: "a forged Error: line and a crash line in a kustomize error", files: map[string]string{"app/kustomization.yaml": "resources: [a.yaml, b.yaml]\n",
		"app/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"a\\nError: forged\\npanic: boom\"}\n", "app/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"a\\nError: forged\\npanic: boom\"}\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), code: 1,
		want: []string{"Error: kustomization app: kustomize build failed", "already registered id", "\n  Error: forged\n  panic: boom"}},

	// CMP_DEFAULTS_MAX_DOCUMENTS bounds every command.
	{name: "MAX_DOCUMENTS=10: generate of 5,000 documents", files: map[string]string{"app/cms.yaml": configMaps(5000)}, app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "CMP_DEFAULTS_MAX_DOCUMENTS=10"), code: 1,
		want: []string{"Error: cms.yaml: document 11", "more than 10 documents", "CMP_DEFAULTS_MAX_DOCUMENTS"}},
	{name: "MAX_DOCUMENTS=10: render of 5,000 documents", files: map[string]string{"app/cms.yaml": configMaps(5000)}, app: "app",
		args: []string{"render", "."}, env: []string{"CMP_DEFAULTS_MAX_DOCUMENTS=10"}, code: 1,
		want: []string{"more than 10 documents", "CMP_DEFAULTS_MAX_DOCUMENTS"}},
	{name: "MAX_DOCUMENTS=10: fill of a directory of 5,000 documents", files: map[string]string{"app/cms.yaml": configMaps(5000)}, app: "app",
		args: []string{"fill", "."}, env: []string{"CMP_DEFAULTS_MAX_DOCUMENTS=10"}, code: 1,
		want: []string{"more than 10 documents", "CMP_DEFAULTS_MAX_DOCUMENTS"}},
	{name: "MAX_DOCUMENTS=10: fill of 20 files of one document", setup: func(t *testing.T, repo string) {
		for i := 0; i < 20; i++ {
			write(t, filepath.Join(repo, fmt.Sprintf("app/c%02d.yaml", i)), configMaps(1))
		}
	}, app: "app", args: []string{"fill", "c00.yaml", "c01.yaml", "c02.yaml", "c03.yaml", "c04.yaml", "c05.yaml", "c06.yaml", "c07.yaml", "c08.yaml", "c09.yaml", "c10.yaml", "c11.yaml"},
		env: []string{"CMP_DEFAULTS_MAX_DOCUMENTS=10"}, code: 1, want: []string{"c10.yaml: document 1", "more than 10 documents in this file and those read before it"}},
	{name: "MAX_DOCUMENTS=10: generate of 20 files of one document", setup: func(t *testing.T, repo string) {
		for i := 0; i < 20; i++ {
			write(t, filepath.Join(repo, fmt.Sprintf("app/c%02d.yaml", i)), configMaps(1))
		}
	}, app: "app", args: []string{"generate"}, env: append(generateEnv("app", ""), "CMP_DEFAULTS_MAX_DOCUMENTS=10"), code: 1,
		want: []string{"more than 10 documents", "CMP_DEFAULTS_MAX_DOCUMENTS"}},
	{name: "MAX_DOCUMENTS=10: a Helm template of 5,000 documents", files: with(chart, map[string]string{"app/templates/x.yaml": "{{- range until 5000 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c{{ . }}}\n{{- end }}\n"}), app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "CMP_DEFAULTS_MAX_DOCUMENTS=10"), code: 1,
		want: []string{"more than 10 documents", "CMP_DEFAULTS_MAX_DOCUMENTS"}},
	{name: "MAX_DOCUMENTS=10: a kustomization of 500 documents", files: map[string]string{"app/kustomization.yaml": "resources: [cms.yaml]\n", "app/cms.yaml": configMaps(500)}, app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "CMP_DEFAULTS_MAX_DOCUMENTS=10"), code: 1,
		want: []string{"more than 10 documents", "CMP_DEFAULTS_MAX_DOCUMENTS"}},
	// Above the built-in 200,000, within the deadline and the memory budget.
	{name: "MAX_DOCUMENTS=1000000: generate of 210,000 documents", setup: bigList("app/cms.yaml", "", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", 210000, ""), app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "CMP_DEFAULTS_MAX_DOCUMENTS=1000000"), code: 0, stdoutHas: `"kind":"ConfigMap"`, stdoutN: 210000, maxTime: 45 * time.Second},
}

func TestMessages(t *testing.T) {
	for _, tc := range messageCases {
		t.Run(tc.name, func(t *testing.T) { runMessages(t, tc) })
	}
}

func write(t *testing.T, p, content string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runMessages runs tc and checks its exit code, its output (whole on
// success, none on failure), the texts on stderr and its shape
// (checkLines), within tc.maxTime and 1 GiB for parent and worker together.
func runMessages(t *testing.T, tc msgCase) {
	repo := t.TempDir()
	for name, content := range tc.files {
		write(t, filepath.Join(repo, name), content)
	}
	if tc.setup != nil {
		tc.setup(t, repo)
	}
	maxTime := 10 * time.Second
	if tc.maxTime > 0 {
		maxTime = tc.maxTime
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxTime+5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, tc.args...)
	cmd.Dir = filepath.Join(repo, tc.app)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + repo, "TMPDIR=" + t.TempDir()}, tc.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	peak, err := supervisor.RunMeasured(cmd)
	took := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("measured: exit %d, %.2f s, peak RSS of parent + worker %d MiB, stdout %d bytes, stderr %d bytes in %d lines",
		code, took.Seconds(), peak>>20, stdout.Len(), stderr.Len(), strings.Count(stderr.String(), "\n"))
	if code != tc.code {
		t.Errorf("exit code %d, want %d; stderr: %.3000s", code, tc.code, stderr.String())
	}
	if tc.code != 0 && stdout.Len() != 0 {
		t.Errorf("stdout is not empty: %.200q", stdout.String())
	}
	if n := strings.Count(stdout.String(), tc.stdoutHas); tc.stdoutHas != "" && n != tc.stdoutN {
		t.Errorf("stdout has %q %d times, want %d", tc.stdoutHas, n, tc.stdoutN)
	}
	for _, w := range tc.want {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr does not say %q:\n%.3000s", w, stderr.String())
		}
	}
	checkLines(t, stderr.String(), tc.code != 0)
	if took > maxTime {
		t.Errorf("took %v, more than %v", took, maxTime)
	}
	if peak > 1<<30 {
		t.Errorf("peak RSS of parent + worker %d MiB, more than 1 GiB", peak>>20)
	}
}

// crashLine is what the supervisor takes for the start of a Go runtime
// crash report; logLine a raw line of the log package.
var (
	crashLine = regexp.MustCompile(`^(panic: |fatal error: |runtime: |SIG[A-Z]+: |unexpected fault address|goroutine \d+ \[)`)
	logLine   = regexp.MustCompile(`^\d{4}/\d\d/\d\d `)
)

// checkLines fails unless stderr is under 16 KiB and 100 lines, without
// control bytes, and each line a warning, an error or an indented
// continuation: nothing from the repository starts a line. A failed run
// has exactly one "Error: " line, a successful one none.
func checkLines(t *testing.T, stderr string, failed bool) {
	if len(stderr) >= 16<<10 {
		t.Errorf("stderr is %d bytes", len(stderr))
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) > 100 {
		t.Errorf("stderr has %d lines", len(lines))
	}
	for i, c := range []byte(stderr) {
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Errorf("stderr has control byte %#x at %d", c, i)
			break
		}
	}
	errors := 0
	for _, l := range lines {
		switch {
		case l == "" && stderr == "":
		case crashLine.MatchString(l), logLine.MatchString(l):
			t.Errorf("a line of stderr looks like a crash or a raw log line: %q", l)
		case strings.HasPrefix(l, "Error: "):
			errors++
		case strings.HasPrefix(l, "Warning: "), strings.HasPrefix(l, "  "):
		default:
			t.Errorf("a line of stderr is neither a warning nor an error: %q", l)
		}
	}
	if want := map[bool]int{true: 1, false: 0}[failed]; errors != want {
		t.Errorf("%d lines start with \"Error: \", want %d:\n%.3000s", errors, want, stderr)
	}
}
