package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

// A legal input of 34 MiB: generate prints it once, and parent and worker
// together stay under 1 GiB.
func TestLargeLegalOutputFitsOneBudget(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("x", 34<<20)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  v: '" + value + "'\n"
	if err := os.WriteFile(filepath.Join(app, "cm.yaml"), []byte(cm), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "generate")
	cmd.Dir = app
	cmd.Env = append([]string{"HOME=" + dir}, generateEnv("app", "")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	peak, err := supervisor.RunMeasured(cmd)
	t.Logf("measured: %.2f s, parent + worker peak %d MiB, stdout %d bytes, stderr %d bytes",
		time.Since(start).Seconds(), peak>>20, stdout.Len(), stderr.Len())
	if err != nil {
		t.Fatalf("%v: %.2000s", err, stderr.String())
	}
	var obj struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil || obj.Data["v"] != value {
		t.Fatalf("the output is not the ConfigMap: %v", err)
	}
	if stdout.Len() > len(cm)+1<<10 {
		t.Errorf("stdout is %d bytes for an input of %d", stdout.Len(), len(cm))
	}
	if peak >= 1<<30 {
		t.Errorf("parent + worker peaked at %d MiB, want under 1 GiB", peak>>20)
	}
}

// Output larger than a quarter of the memory budget is refused, and the
// two processes together never pass the budget by more than what one
// poll of the supervisor lets through.
func TestOutputBoundedByTheBudget(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 4 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata:\n  v: '%s'\n", i, strings.Repeat("x", 20<<20))
	}
	if err := os.WriteFile(filepath.Join(app, "cm.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const budget = 256 << 20
	cmd := exec.Command(bin, "generate")
	cmd.Dir = app
	cmd.Env = append([]string{"HOME=" + dir, fmt.Sprintf("CMP_DEFAULTS_MAX_MEMORY_BYTES=%d", budget), "CMP_DEFAULTS_MAX_INPUT_BYTES=200000000"}, generateEnv("app", "")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	peak, err := supervisor.RunMeasured(cmd)
	t.Logf("measured: parent + worker peak %d MiB, stderr %q", peak>>20, stderr.String())
	if err == nil || stdout.Len() != 0 {
		t.Fatalf("exit %v, stdout %d bytes; want an error and nothing", err, stdout.Len())
	}
	if !strings.Contains(stderr.String(), "CMP_DEFAULTS_MAX_MEMORY_BYTES") {
		t.Errorf("stderr does not name the setting: %s", stderr.String())
	}
	if peak > budget+48<<20 {
		t.Errorf("parent + worker peaked at %d MiB over a budget of %d MiB", peak>>20, budget>>20)
	}
}

// A successful run whose messages hold a line that looks like a Go
// runtime crash (a file name with a line break) is still a success: only
// a worker that did not exit normally crashed.
func TestCrashLookalikeOnSuccess(t *testing.T) {
	dir := t.TempDir()
	name := "a\npanic: forged\nfatal error: out of memory.yaml"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: 1, k: 2}\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(cm), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "fill", name)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "name: a") {
		t.Errorf("stdout %q", stdout.String())
	}
}

// 150 warnings before the error: the error is the line that stays.
func TestErrorOutlastsWarnings(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 150 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {k%s: 1, k%[2]s: 2}\n", i, strings.Repeat("k", 200))
	}
	b.WriteString("---\nkind: [unclosed\n")
	if err := os.WriteFile(filepath.Join(dir, "in.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "fill", "in.yaml")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil || stdout.Len() != 0 {
		t.Fatalf("exit %v, stdout %d bytes", err, stdout.Len())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "Error: ") || !strings.Contains(last, "in.yaml: document 151") {
		t.Errorf("the last line is %q, want the error naming in.yaml's document 151", last)
	}
	if stderr.Len() >= 16<<10 || len(lines) > 100 {
		t.Errorf("stderr: %d bytes, %d lines", stderr.Len(), len(lines))
	}
}
