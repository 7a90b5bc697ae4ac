package hostile

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// No input may crash or outlast the process that reports the
// error. Every case: exit 1, nothing on stdout, one line under 16 KiB on
// stderr without control bytes or a runtime trace, within the deadline
// plus 5 s, under 1 GiB of peak memory.
var round3 = []hostileCase{
	{name: "plain directory: a 24 MB YAML list", setup: bigList("app/big.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\nx: [", "0,", 12<<20, "0]\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "memory budget exceeded", code: 1, maxTime: 40 * time.Second, maxRSS: 1024},
	{name: "an ExternalSecret with 1,000,000 data items", setup: bigList("app/es.yaml", "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: x}\nspec:\n  data:\n", "  - remoteRef: {}\n", 1000000, ""), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "memory budget exceeded", code: 1, maxTime: 40 * time.Second, maxRSS: 1024},
	// At the 1.6 MB the run now fits the default budget (exit 0, about
	// 600 MiB, since generate writes JSON), so the case doubles it.
	{name: "Helm chart ranging a 3.2 MB values file into one object",
		files: with(chart, map[string]string{"app/templates/es.yaml": "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: x}\nspec:\n  data:\n{{- range .Values.items }}\n  - remoteRef: {}\n{{- end }}\n"}),
		setup: bigList("app/values.yaml", "items:\n", "- 1\n", 800000, ""), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "memory budget exceeded", code: 1, maxTime: 40 * time.Second, maxRSS: 1024},
	{name: "the Go runtime aborting: out of memory under an address-space limit", setup: bigList("app/big.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\nx: [", "0,", 12<<20, "0]\n"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), ulimitKB: 1200000, want: "ran out of memory", code: 1, maxTime: 40 * time.Second, maxRSS: 1024},
	{name: "vendored chart archive with a 99 MiB entry of tar type 7", files: chart,
		setup: func(t *testing.T, repo string) {
			typedArchive(t, filepath.Join(repo, "app/charts/sub-0.1.0.tgz"), tar.TypeCont, 99<<20, "")
		}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "more than 67108864 bytes", code: 1},
	{name: "vendored chart archive with a symbolic link", files: chart,
		setup: func(t *testing.T, repo string) {
			typedArchive(t, filepath.Join(repo, "app/charts/sub-0.1.0.tgz"), tar.TypeSymlink, 0, "/etc/passwd")
		}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "is a link", code: 1},
	{name: "a file whose second document fails to parse after a first object", files: map[string]string{"app/two.yaml": `"\x61piVersion": v1` + "\n\"\\x6bind\": ConfigMap\n\"\\x6detadata\": {name: a}\n---\n\"\\x6bind\": [unclosed\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "two.yaml: document 2", code: 1},
	{name: "a kustomize error line of 9 MB", files: map[string]string{"app/kustomization.yaml": "resources: [r.yaml]\n",
		"app/r.yaml": strings.Repeat("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+strings.Repeat("a", 9<<20)+"}\n", 2)}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "more bytes cut", code: 1},
	{name: "a plain error line of 3 MB", files: map[string]string{"app/es.yaml": "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: " + strings.Repeat("n", 3<<20) + "}\nspec: text\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "more bytes cut", code: 1},
	{name: "terminal escapes in an object name", files: map[string]string{"app/es.yaml": "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: \"\\e]0;owned\\a\\e[2J\\e[31mred\"}\nspec: text\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "red", code: 1},
	{name: "generate into a pipe its reader closed", setup: bigList("app/cms.yaml", "", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", 20000, ""), app: "app", stdout: "pipe-closed",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "stdout was closed by its reader", code: 1},
	{name: "a tenant's timeout above the sidecar's", files: map[string]string{"app/es.yaml": es}, app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=1000h"), want: "more than the 40s the sidecar allows", code: 1},
}

func TestHostileRound3(t *testing.T) {
	for _, tc := range round3 {
		tc.oneLine, tc.clean = true, true
		if tc.maxTime == 0 {
			tc.maxTime = 45 * time.Second // generate's 40 s deadline + 5 s
		}
		if tc.maxRSS == 0 {
			tc.maxRSS = 1024
		}
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

// bigList writes head, item n times, then tail, to name.
func bigList(name, head, item string, n int, tail string) func(t *testing.T, repo string) {
	return func(t *testing.T, repo string) {
		var b bytes.Buffer
		b.Grow(len(head) + n*len(item) + len(tail))
		b.WriteString(head)
		for i := 0; i < n; i++ {
			b.WriteString(item)
		}
		b.WriteString(tail)
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// typedArchive writes a chart archive with one more entry of type typ:
// size zero bytes of content, or a link to link.
func typedArchive(t *testing.T, path string, typ byte, size int64, link string) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	meta := []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
	tw.WriteHeader(&tar.Header{Name: "sub/Chart.yaml", Mode: 0o644, Size: int64(len(meta)), Typeflag: tar.TypeReg})
	tw.Write(meta)
	if err := tw.WriteHeader(&tar.Header{Name: "sub/templates/x.yaml", Mode: 0o644, Size: size, Typeflag: typ, Linkname: link}); err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for left := size; left > 0; left -= int64(len(zero)) {
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

// checkClean fails when stderr holds control bytes (terminal escapes) or a
// Go runtime crash report, or its reason is 16 KiB or more.
func checkClean(t *testing.T, stderr []byte) {
	for i, c := range stderr {
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Errorf("stderr has control byte %#x at %d: %.200q", c, i, stderr[max(0, i-40):])
			break
		}
	}
	for _, bad := range []string{"goroutine ", "fatal error:", "panic:", "runtime."} {
		if bytes.Contains(stderr, []byte(bad)) {
			t.Errorf("stderr has a runtime trace (%q): %.2000s", bad, stderr)
		}
	}
	if len(stderr) >= 16<<10 {
		t.Errorf("stderr is %d bytes", len(stderr))
	}
}

// Duplicate keys are found in linear time and their warnings collapsed.
func TestDuplicateKeysLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup}\ndata:\n")
	for i := 0; i < 42000; i++ {
		fmt.Fprintf(&b, "  k: v%d\n", i)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "fill", "cm.yaml")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %.2000s", err, stderr.String())
	}
	took := time.Since(start)
	t.Logf("measured: %.2f s, stderr %d bytes", took.Seconds(), stderr.Len())
	if !strings.Contains(stdout.String(), "k: v41999") {
		t.Errorf("the last duplicate does not win: %.300s", stdout.String())
	}
	if lines := strings.Count(stderr.String(), "\n"); lines > 5 || !strings.Contains(stderr.String(), "and 41996 more keys") {
		t.Errorf("want at most 5 collapsed warnings, got %d lines: %.2000s", lines, stderr.String())
	}
	if took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}

// Output that a script discards (Python's subprocess.DEVNULL opens
// /dev/null read-write) is not refused.
func TestStdoutOnDevNullReadWrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "es.yaml"), []byte(es), 0o644); err != nil {
		t.Fatal(err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(bin, "fill", "--operator", "external-secrets@2.5.0", "es.yaml")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = null, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("%v: %s", err, stderr.String())
	}
}

// closedPipe is a pipe whose reader is gone.
func closedPipe(t *testing.T) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}
