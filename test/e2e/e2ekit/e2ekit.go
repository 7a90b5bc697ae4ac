// Package e2ekit holds what the end-to-end suites of test/e2e share whatever
// Argo CD or Kubernetes release they build: the cmp-defaults binary under
// test and the environment its go command runs in. It imports the standard
// library only, so each suite's module keeps its own dependency versions.
package e2ekit

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// CMPDefaultsBinary returns the cmp-defaults binary under test as
// dir/cmp-defaults: $CMP_DEFAULTS_BIN if set (test/e2e/run.sh builds it once
// for every suite), else built from repoRoot like the image does, with the
// toolchain the root module selects. A build is reported to log when it is
// not nil.
func CMPDefaultsBinary(dir, repoRoot string, log io.Writer) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "cmp-defaults")
	if prebuilt := os.Getenv("CMP_DEFAULTS_BIN"); prebuilt != "" {
		abs, err := filepath.Abs(prebuilt)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("CMP_DEFAULTS_BIN: %w", err)
		}
		return out, os.Symlink(abs, out)
	}
	start := time.Now()
	cmd, err := GoCommand(repoRoot, "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "./cmd/cmp-defaults")
	if err != nil {
		return "", err
	}
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/cmp-defaults: %v\n%s", err, msg)
	}
	if log != nil {
		gv, _ := GoCommand(repoRoot, "version")
		v, _ := gv.Output()
		fmt.Fprintf(log, "built cmp-defaults in %s with %s", time.Since(start).Round(time.Second), v)
	}
	return out, nil
}

// GoCommand is the go command run in dir for the root module or an
// operator's webhook module: under a switched toolchain it still builds with
// the toolchain that module's go.mod selects (RootModuleGoEnv).
func GoCommand(dir string, args ...string) (*exec.Cmd, error) {
	env := RootModuleGoEnv()
	goCmd, err := LookPath("go", env)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(goCmd, args...)
	cmd.Dir, cmd.Env = dir, env
	return cmd, nil
}

// Build runs cmd, a go build, holding an exclusive lock on the build cache
// it fills, and returns its combined output. The suites of one run start the
// same operator webhooks from separate test processes; two go commands that
// compile the same packages at once both compile them, while one after the
// other the second finds them in the cache.
func Build(cmd *exec.Cmd) ([]byte, error) {
	env := exec.Command(cmd.Path, "env", "GOCACHE")
	env.Dir, env.Env = cmd.Dir, cmd.Env
	out, err := env.Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOCACHE: %w", err)
	}
	cache := strings.TrimSpace(string(out))
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	lock, err := os.Open(cache)
	if err != nil {
		return nil, err
	}
	defer lock.Close() // closing releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("locking %s: %w", cache, err)
	}
	return cmd.CombinedOutput()
}

// ModuleDir is where module, which the module of the go commands that run
// makes requires (with the -modfile of flags, if any), is in the Go module
// cache. go list -m names no directory for a module a cold cache does not
// hold yet: it is downloaded first then.
func ModuleDir(run func(args ...string) (*exec.Cmd, error), module string, flags ...string) (string, error) {
	var modfile []string
	for _, f := range flags {
		if strings.HasPrefix(f, "-modfile=") {
			modfile = append(modfile, f)
		}
	}
	list := append(append([]string{"list"}, modfile...), "-m", "-f", "{{.Dir}}", module)
	for _, args := range [][]string{list, append(append([]string{"mod", "download"}, modfile...), module), list} {
		cmd, err := run(args...)
		if err != nil {
			return "", err
		}
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("go %s: %v", strings.Join(args, " "), err)
		}
		if dir := strings.TrimSpace(string(out)); dir != "" {
			return dir, nil
		}
	}
	return "", fmt.Errorf("go list -m %s: the module is not in the module cache after go mod download", module)
}

// RootModuleGoEnv is the environment for building the root module (or an
// operator's webhook module): when the test runs under a switched toolchain
// (GOTOOLCHAIN=go1.27.3 for Argo CD v3), that module is built with the
// toolchain it selects itself, as in .ci/run and the image, not with the
// test's.
func RootModuleGoEnv() []string {
	goroot := os.Getenv("GOROOT")
	switched := strings.Contains(goroot, "golang.org/toolchain@")
	var env []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "CGO_ENABLED":
			continue
		case switched && (k == "GOROOT" || k == "GOTOOLCHAIN"):
			continue
		case switched && k == "PATH":
			var keep []string
			for _, p := range filepath.SplitList(v) {
				if p != filepath.Join(goroot, "bin") {
					keep = append(keep, p)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(os.PathListSeparator))
		}
		env = append(env, kv)
	}
	return append(env, "CGO_ENABLED=0")
}

// LookPath finds an executable in the PATH of env (exec.LookPath would use
// this process's PATH, which a switched toolchain has changed).
func LookPath(name string, env []string) (string, error) {
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(p) {
				f := filepath.Join(dir, name)
				if fi, err := os.Stat(f); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return f, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s not found in PATH", name)
}
