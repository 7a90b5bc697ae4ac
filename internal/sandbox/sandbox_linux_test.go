//go:build linux

package sandbox

import (
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

// A confined process cannot be let go of: each case re-runs the test
// binary as a child that confines itself with some layers and reports
// what it could still do, one probe per line.
func TestMain(m *testing.M) {
	if layers := os.Getenv("SANDBOX_TEST_LAYERS"); layers != "" {
		os.Exit(child(layers, os.Getenv("SANDBOX_TEST_REPO"), os.Getenv("SANDBOX_TEST_OUTSIDE"), os.Getenv("SANDBOX_TEST_ADDR")))
	}
	os.Exit(m.Run())
}

// child confines itself with layers ("none", "seccomp", "landlock",
// "dials", "all") and probes: each probe prints "name ok" or "name
// error: ...".
func child(layers, repo, outside, addr string) int {
	var err error
	switch layers {
	case "seccomp":
		err = seccomp.LoadFilter(socketFilter())
	case "landlock":
		err = restrictFiles([]string{repo})
	case "dials":
		refuseDials()
	case "all":
		var missing []Layer
		if missing, err = Confine([]string{repo}); err == nil && len(missing) > 0 {
			err = fmt.Errorf("missing layers %v", missing)
		}
	}
	if err != nil {
		fmt.Println("confine error:", err)
		return 1
	}
	probe := func(name string, err error) {
		if err != nil {
			fmt.Printf("%s error: %v\n", name, err)
			return
		}
		fmt.Println(name, "ok")
	}
	probe("dial", func() error {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	}())
	probe("http", func() error {
		resp, err := http.Get("http://" + addr + "/x")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}())
	probe("unix", func() error {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err == nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
		}
		return err
	}())
	probe("read-repo", readErr(filepath.Join(repo, "sub", "in.yaml")))
	probe("list-repo", func() error { _, err := os.ReadDir(filepath.Join(repo, "sub")); return err }())
	probe("read-outside", readErr(outside))
	probe("read-etc", readErr("/etc/hostname"))
	probe("write-repo", os.WriteFile(filepath.Join(repo, "new.yaml"), nil, 0o644))
	probe("exec", func() error {
		// No files to open first (exec.Cmd opens /dev/null): execve alone.
		pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0], "-test.run=^$"}, &syscall.ProcAttr{})
		if err == nil {
			_, err = syscall.Wait4(pid, nil, 0, nil)
		}
		return err
	}())
	return 0
}

func readErr(name string) error {
	_, err := os.ReadFile(name)
	return err
}

// run runs the child with layers against a loopback HTTP server it
// starts, and returns the probes' results and the requests the server saw.
func run(t *testing.T, layers string) (map[string]string, int64) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fmt.Fprint(w, "secret")
	}))
	defer srv.Close()
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	outside := filepath.Join(top, "outside.yaml")
	for _, name := range []string{filepath.Join(repo, "sub", "in.yaml"), outside} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("a: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_LAYERS="+layers, "SANDBOX_TEST_REPO="+repo,
		"SANDBOX_TEST_OUTSIDE="+outside, "SANDBOX_TEST_ADDR="+srv.Listener.Addr().String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", layers, err, out)
	}
	res := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, result, _ := strings.Cut(l, " ")
		res[name] = result
	}
	return res, requests.Load()
}

// expect checks each probe: "ok", or an error containing the text given.
func expect(t *testing.T, res map[string]string, want map[string]string) {
	t.Helper()
	for name, w := range want {
		got, ok := res[name]
		switch {
		case !ok:
			t.Errorf("probe %s did not run; output: %v", name, res)
		case w == "ok" && got != "ok":
			t.Errorf("%s: want it to work, got %s", name, got)
		case w != "ok" && (got == "ok" || !strings.Contains(got, w)):
			t.Errorf("%s: want an error with %q, got %s", name, w, got)
		}
	}
}

func needSeccomp(t *testing.T) {
	if !seccomp.Supported() {
		t.Skip("the kernel has no seccomp filters (seccomp(2) is missing or refused), so this layer cannot be tested here")
	}
}

func landlockABI(t *testing.T) int {
	abi, err := llsyscall.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		t.Skipf("the kernel has no Landlock (%v; it needs Linux 5.13+ with landlock in the lsm= boot list), so this layer cannot be tested here", err)
	}
	return abi
}

// The control: without confinement every probe works, so each refusal
// below is the layer's doing.
func TestUnconfinedChildCanDoEverything(t *testing.T) {
	res, requests := run(t, "none")
	want := map[string]string{"dial": "ok", "http": "ok", "unix": "ok", "read-repo": "ok", "list-repo": "ok", "read-outside": "ok", "write-repo": "ok", "exec": "ok"}
	if _, err := os.Stat("/etc/hostname"); err == nil {
		want["read-etc"] = "ok"
	}
	expect(t, res, want)
	if requests != 1 {
		t.Errorf("the server saw %d requests, want 1", requests)
	}
}

func TestSeccompRefusesNetworkSockets(t *testing.T) {
	needSeccomp(t)
	res, requests := run(t, "seccomp")
	denied := syscall.EACCES.Error()
	expect(t, res, map[string]string{"dial": denied, "http": denied, "unix": "ok", "read-repo": "ok",
		"read-outside": "ok", "exec": syscall.EPERM.Error()})
	if requests != 0 {
		t.Errorf("the server saw %d requests from a process under the seccomp filter", requests)
	}
}

func TestLandlockConfinesFiles(t *testing.T) {
	abi := landlockABI(t)
	res, requests := run(t, "landlock")
	denied := syscall.EACCES.Error()
	want := map[string]string{"read-repo": "ok", "list-repo": "ok", "read-outside": denied, "write-repo": denied, "exec": denied, "unix": "ok"}
	if _, err := os.Stat("/etc/hostname"); err == nil {
		want["read-etc"] = denied
	}
	if abi >= 4 {
		// Landlock's own network rules: no TCP port may be connected to.
		want["dial"] = denied
		if requests != 0 {
			t.Errorf("the server saw %d requests from a process under Landlock ABI %d", requests, abi)
		}
	}
	expect(t, res, want)
}

// The in-process layer alone: Go's default transport refuses, though a
// raw dial is not stopped (the kernel layers do that).
func TestRefuseDialsStopsDefaultTransport(t *testing.T) {
	res, requests := run(t, "dials")
	expect(t, res, map[string]string{"http": ErrNetwork.Error(), "dial": "ok"})
	if requests != 0 {
		t.Errorf("the server saw %d requests through the refusing transport", requests)
	}
}

func TestConfineAllLayers(t *testing.T) {
	needSeccomp(t)
	landlockABI(t)
	res, requests := run(t, "all")
	denied := syscall.EACCES.Error()
	want := map[string]string{"dial": denied, "http": ErrNetwork.Error(), "unix": "ok", "read-repo": "ok", "list-repo": "ok",
		"read-outside": denied, "write-repo": denied, "exec": syscall.EPERM.Error()}
	if _, err := os.Stat("/etc/hostname"); err == nil {
		want["read-etc"] = denied
	}
	expect(t, res, want)
	if requests != 0 {
		t.Errorf("the server saw %d requests from a confined process", requests)
	}
}
