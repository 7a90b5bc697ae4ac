package hostile

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	seccomp "github.com/elastic/go-seccomp-bpf"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// The worker of a command that reads a source is confined by the kernel
// (internal/sandbox): these cases run the built binary. That each layer
// stops what it should on its own is proved in internal/sandbox, by a
// process that confines itself and probes.

// kernelHasSandbox says whether this kernel gives the worker both layers,
// and if not, which is missing.
func kernelHasSandbox() (bool, string) {
	if !seccomp.Supported() {
		return false, "seccomp filters"
	}
	if abi, err := llsyscall.LandlockGetABIVersion(); err != nil || abi < 1 {
		return false, "Landlock (Linux 5.13+ with landlock in the lsm= boot list)"
	}
	return true, ""
}

// runBin runs the binary in dir with env (and PATH, HOME) and returns the
// exit code, stdout and stderr. wrap, when set, is a command line the
// binary's is appended to.
func runBin(t *testing.T, dir string, env []string, wrap []string, args ...string) (int, string, string) {
	t.Helper()
	argv := append(append(append([]string{}, wrap...), bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// A kustomize generator config may list URLs, which kustomize's loader
// fetches with a bare http.Client; Go sends loopback requests directly,
// past any proxy. A service in the repo-server pod must see no request.
func TestSandboxLoopbackFetchRefused(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fmt.Fprint(w, "LEAKED=pod-secret\n")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct{ name, config string }{
		{"ConfigMapGenerator files", "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\nfiles:\n- http://127.0.0.1:%d/x\n"},
		{"SecretGenerator envs, localhost, upper-case scheme", "apiVersion: builtin\nkind: SecretGenerator\nmetadata: {name: leak}\nenvs:\n- HTTP://localhost:%d/x\n"},
		{"ConfigMapGenerator files with a key", "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\nfiles:\n- k=http://[::ffff:127.0.0.1]:%d/x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			app := filepath.Join(repo, "app")
			writeFiles(t, app, map[string]string{"kustomization.yaml": "generators: [gen.yaml]\n", "gen.yaml": fmt.Sprintf(tc.config, port)})
			code, stdout, stderr := runBin(t, app, generateEnv("app", ""), nil, "generate")
			if code != 1 || stdout != "" || !strings.Contains(stderr, "Error: ") || strings.Contains(stdout+stderr, "pod-secret") {
				t.Errorf("want exit 1, empty stdout and an error; got exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
			}
			if n := requests.Swap(0); n != 0 {
				t.Errorf("the loopback server saw %d requests from generate", n)
			}
		})
	}
}

// The examples render and generate confined exactly as unconfined, and
// with nothing said about the sandbox where the kernel has it.
func TestSandboxExamplesUnchanged(t *testing.T) {
	has, missing := kernelHasSandbox()
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	op := "--operator=external-secrets@2.5.0"
	for _, tc := range []struct {
		dir  string
		env  []string
		args []string
	}{
		{examples, nil, []string{"render", op, "plain"}},
		{examples, nil, []string{"render", op, "helm", "-f", "values-prod.yaml"}},
		{examples, nil, []string{"render", op, "kustomize/overlays/prod"}},
		{examples, nil, []string{"fill", op, "plain/externalsecret.yaml"}},
		{examples, nil, []string{"explain", op, "helm"}},
		{examples, nil, []string{"diff-releases", "external-secrets@2.5.0", "external-secrets@2.6.0", "plain"}},
		{filepath.Join(examples, "helm"), generateEnv("examples/helm", ""), []string{"generate"}},
		{filepath.Join(examples, "kustomize/overlays/prod"), generateEnv("examples/kustomize/overlays/prod", ""), []string{"generate"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runBin(t, tc.dir, tc.env, nil, tc.args...)
			offCode, offStdout, _ := runBin(t, tc.dir, append(tc.env, "CMP_DEFAULTS_SANDBOX=off"), nil, tc.args...)
			if code != offCode || stdout != offStdout || stdout == "" {
				t.Errorf("confined: exit %d, %d bytes; unconfined: exit %d, %d bytes; stderr:\n%s", code, len(stdout), offCode, len(offStdout), stderr)
			}
			switch says := strings.Contains(stderr, "sandbox") || strings.Contains(stderr, "the worker runs without"); {
			case has && says:
				t.Errorf("stderr speaks of the sandbox on a kernel that has it:\n%s", stderr)
			case !has && !says:
				t.Errorf("the kernel lacks %s, and stderr does not say so:\n%s", missing, stderr)
			}
		})
	}
}

// A kernel without a layer is simulated by a seccomp filter that makes its
// system calls fail with ENOSYS, as an old kernel does; the binary runs
// under it (noKernelLayers). The run works and warns once, or with
// CMP_DEFAULTS_SANDBOX=require fails closed naming the missing layer.
func TestSandboxMissingLayers(t *testing.T) {
	if !seccomp.Supported() {
		t.Skip("no seccomp on this kernel: the test simulates a kernel without a layer with a seccomp filter")
	}
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(examples, "helm")
	env := generateEnv("examples/helm", "")
	for _, tc := range []struct {
		hide, want string
	}{
		{"landlock", "Landlock (which stops reading files outside the repository and profile directories)"},
		{"both", "seccomp (which stops network sockets) and Landlock"},
	} {
		wrap := []string{os.Args[0], "-test.run=^TestNoKernelLayersExec$", "--", tc.hide}
		t.Run(tc.hide+" missing, default", func(t *testing.T) {
			code, stdout, stderr := runBin(t, dir, append(env, "HOSTILE_BIN="+bin), wrap, "generate")
			if code != 0 || stdout == "" {
				t.Fatalf("exit %d, %d bytes on stdout; stderr:\n%s", code, len(stdout), stderr)
			}
			if n := strings.Count(stderr, "Warning: the worker runs without "); n != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("want one warning naming %q, got:\n%s", tc.want, stderr)
			}
		})
		t.Run(tc.hide+" missing, require", func(t *testing.T) {
			code, stdout, stderr := runBin(t, dir, append(env, "HOSTILE_BIN="+bin, "CMP_DEFAULTS_SANDBOX=require"), wrap, "generate")
			if code != 1 || stdout != "" || !strings.Contains(stderr, "Error: the kernel does not provide "+tc.want) || !strings.Contains(stderr, "CMP_DEFAULTS_SANDBOX=require") {
				t.Errorf("want exit 1, empty stdout and an error naming %q; got exit %d, stdout %d bytes, stderr:\n%s", tc.want, code, len(stdout), stderr)
			}
		})
	}
	t.Run("a wrong value", func(t *testing.T) {
		code, stdout, stderr := runBin(t, dir, append(env, "CMP_DEFAULTS_SANDBOX=maybe"), nil, "generate")
		if code != 2 || stdout != "" || !strings.Contains(stderr, `CMP_DEFAULTS_SANDBOX="maybe"`) {
			t.Errorf("want exit 2 naming the setting; got exit %d, stdout %d bytes, stderr:\n%s", code, len(stdout), stderr)
		}
	})
}

// TestNoKernelLayersExec is not a test: run by TestSandboxMissingLayers
// as "-test.run=... -- LAYERS BINARY ARGS...", it makes the system calls
// of LAYERS (landlock, or both: landlock and seccomp) fail with ENOSYS
// for itself and every process it starts, and executes BINARY.
func TestNoKernelLayersExec(t *testing.T) {
	args := flagArgs()
	if len(args) < 2 {
		t.Skip("run by TestSandboxMissingLayers")
	}
	names := []string{"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}
	if args[0] == "both" {
		names = append(names, "seccomp")
	}
	filter := seccomp.Filter{NoNewPrivs: true, Flag: seccomp.FilterFlagTSync, Policy: seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls:      []seccomp.SyscallGroup{{Action: seccomp.ActionErrno | seccomp.Action(syscall.ENOSYS), Names: names}},
	}}
	if err := seccomp.LoadFilter(filter); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(binDir)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOSTILE_BIN=") {
			env = append(env, kv)
		}
	}
	t.Fatal(syscall.Exec(args[1], args[1:], env))
}

// flagArgs are the test binary's arguments after "--".
func flagArgs() []string {
	for i, a := range os.Args {
		if a == "--" {
			return os.Args[i+1:]
		}
	}
	return nil
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
