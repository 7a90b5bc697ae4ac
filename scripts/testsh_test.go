// Package scripts_test checks scripts/test.sh's switches with stand-ins for
// the commands it runs.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run runs a copy of test.sh in a tree whose go and test/e2e/run.sh only
// record that they ran; it returns the record and the output.
func run(t *testing.T, env ...string) (calls, out string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	src, err := os.ReadFile("test.sh")
	if err != nil {
		t.Fatal(err)
	}
	tree, bin := t.TempDir(), t.TempDir()
	log := filepath.Join(t.TempDir(), "calls")
	for name, body := range map[string]string{
		filepath.Join(tree, "scripts", "test.sh"):    string(src),
		filepath.Join(tree, "test", "e2e", "run.sh"): "#!/bin/sh\necho e2e >>" + log + "\n",
		filepath.Join(bin, "go"):                     "#!/bin/sh\necho \"go $*\" >>" + log + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []string{"test/e2e/cmp-v2", "test/e2e/cmp-v3", "test/e2e/e2ekit", "cmd/cmp-defaults-appset"} {
		if err := os.MkdirAll(filepath.Join(tree, filepath.FromSlash(m)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(tree, "scripts", "test.sh"))
	// The caller's own E2E (E2E=0 scripts/test.sh runs this test) must not decide.
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "E2E=") {
			environ = append(environ, kv)
		}
	}
	cmd.Env = append(environ, append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("test.sh: %v\n%s", err, b)
	}
	c, _ := os.ReadFile(log)
	return string(c), string(b)
}

func TestQuickSkipsE2E(t *testing.T) {
	calls, out := run(t, "E2E=0")
	if strings.Contains(calls, "e2e") || strings.Count(calls, "go mod tidy") != 1 {
		t.Errorf("E2E=0 ran the end-to-end modules or tidied them:\n%s", calls)
	}
	if !strings.Contains(calls, "go test -count=1 -timeout 30m ./...") || !strings.Contains(out, "-- e2e: skipped (E2E=0)") {
		t.Errorf("E2E=0 did not run the rest, or did not say what it skipped:\n%s\n%s", calls, out)
	}
}

func TestFullRunsE2E(t *testing.T) {
	calls, _ := run(t)
	if !strings.Contains(calls, "\ne2e\n") || strings.Count(calls, "go mod tidy") != 5 { // the root, cmp-v2, e2ekit, test/e2e and cmp-defaults-appset
		t.Errorf("without E2E=0 the end-to-end modules did not run:\n%s", calls)
	}
}
