package entry

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

// heavy are packages of Helm, Kubernetes and JSON Schema whose
// initialisation the supervising parent must not pay.
var heavy = []string{"k8s.io/client-go/kubernetes/scheme", "helm.sh/helm/v4/", "github.com/santhosh-tekuri/jsonschema/"}

// TestParentSkipsHeavyInit runs the built binary with the Go runtime's
// trace of package initialisation: a command run in-process lists the
// heavy packages, a supervised one none of them, as the parent exits from
// this package's init. The worker's environment (WorkerEnv) has no
// GODEBUG, so every traced line is the parent's.
func TestParentSkipsHeavyInit(t *testing.T) {
	if !supervisor.Supported {
		t.Skip("no worker on this system")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cmp-defaults")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/cmp-defaults")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(src, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := func(args ...string) (inits []string, stdout string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"GODEBUG=inittrace=1", "HOME=" + dir}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", args, err, errb.String())
		}
		for _, l := range strings.Split(errb.String(), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "init" {
				inits = append(inits, f[1])
			}
		}
		return inits, out.String()
	}
	initialised := func(inits []string, prefix string) bool {
		for _, p := range inits {
			if strings.HasPrefix(p, prefix) {
				return true
			}
		}
		return false
	}

	inProcess, _ := trace("version")
	for _, h := range heavy {
		if !initialised(inProcess, h) {
			t.Errorf("version (in-process): no %s in the trace of initialisation; is the list of heavy packages out of date?", h)
		}
	}
	parent, out := trace("fill", "cm.yaml")
	if !strings.Contains(out, "name: a") {
		t.Errorf("fill printed %q, want the ConfigMap", out)
	}
	if len(parent) == 0 {
		t.Fatal("fill: the parent traced no package initialisation")
	}
	for _, h := range heavy {
		if initialised(parent, h) {
			t.Errorf("fill: the supervising parent initialised %s; it must run the worker from package entry's init, before those", h)
		}
	}
}
