package controller

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	log "github.com/sirupsen/logrus"
	"k8s.io/klog/v2"
)

// The environment shared by every test, set up once by TestMain: one API
// server, one Argo CD (controller, repo-server, cmp-server), one Git
// repository. Each scenario uses Applications and namespaces of its own.
var (
	tmpRoot  string // everything the suite writes; removed at the end
	modCache string // the Go module cache (Argo CD's install manifests)
	goCache  string // the Go build cache, for builds after HOME changes
	binary   string // the cmp-defaults binary under test
	cluster  *kubeServer
	argo     *argoCD
	repo     *gitRepo
)

func TestMain(m *testing.M) {
	flag.Parse()
	code, err := testMain(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		code = 1
	}
	os.Exit(code)
}

func testMain(m *testing.M) (code int, err error) {
	// Unix socket paths are limited to ~108 bytes: keep the root short.
	if tmpRoot, err = os.MkdirTemp("", "cmpctl"); err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmpRoot)
	tb := &mainTB{name: "TestMain"}
	defer tb.cleanup()
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(mainFatal); ok {
				err = f
				return
			}
			panic(r)
		}
	}()

	// Outside any module, before HOME changes: the go command of any
	// version answers.
	cmd := exec.Command("go", "env", "GOMODCACHE", "GOCACHE")
	cmd.Dir = tmpRoot
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("go env GOMODCACHE GOCACHE: %w", err)
	}
	if caches := strings.Fields(string(out)); len(caches) == 2 {
		modCache, goCache = caches[0], caches[1]
	} else {
		return 0, fmt.Errorf("go env GOMODCACHE GOCACHE: %q", out)
	}
	if binary, err = cmpDefaultsBinary(filepath.Join(tmpRoot, "bin")); err != nil {
		return 0, err
	}
	if err := hermeticEnv(); err != nil {
		return 0, err
	}
	quietLogs()

	start := time.Now()
	cluster = startKubeServer(tb, "in-cluster")
	if repo, err = newGitRepo(filepath.Join(tmpRoot, "git")); err != nil {
		return 0, err
	}
	argo = startArgoCD(tb, cluster)
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "kube-apiserver %s and Argo CD %s ready in %s\n", cluster.host, argoCDVersion, time.Since(start).Round(time.Millisecond))
	}
	return m.Run(), nil
}

// cmpDefaultsBinary returns the cmp-defaults binary under test as
// dir/cmp-defaults: $CMP_DEFAULTS_BIN (test/e2e/run.sh builds it once for
// every module), else built from the repository root like the image does,
// with the toolchain the root module selects.
func cmpDefaultsBinary(dir string) (string, error) {
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
	env := rootModuleGoEnv()
	goCmd, err := lookPath("go", env)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(goCmd, "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "./cmd/cmp-defaults")
	cmd.Dir = repoRoot()
	cmd.Env = env
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/cmp-defaults: %v\n%s", err, msg)
	}
	return out, nil
}

// rootModuleGoEnv is the environment for building the root module: under a
// switched toolchain (GOTOOLCHAIN=go1.27.3 for this module) the root module
// is built with the toolchain it selects itself, as in .ci/run and the image.
func rootModuleGoEnv() []string {
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

// lookPath finds an executable in the PATH of env.
func lookPath(name string, env []string) (string, error) {
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

// repoRoot is the cmp-defaults repository root, three levels up.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", "..", ".."))
}

// hermeticEnv: temporary files inside tmpRoot, the plugin on PATH, and no
// cmp-defaults or Argo CD settings from the caller's environment.
func hermeticEnv() error {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CMP_DEFAULTS_") || strings.HasPrefix(k, "ARGOCD_") || k == "KUBECONFIG" {
			os.Unsetenv(k)
		}
	}
	for k, v := range map[string]string{
		"TMPDIR":       tmpRoot,
		"HOME":         filepath.Join(tmpRoot, "home"),
		"KUBECACHEDIR": filepath.Join(tmpRoot, "kubecache"),
		"PATH":         filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH"),
		// Git in the repo-server: no system or user configuration.
		"GIT_CONFIG_NOSYSTEM": "1",
	} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(tmpRoot, "home"), 0o700)
}

// quietLogs keeps the logs of the API server, etcd and Argo CD out of the
// test output (E2E_LOGS=1 shows them).
func quietLogs() {
	if os.Getenv("E2E_LOGS") != "" {
		return
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	log.SetOutput(io.Discard)
	// Argo CD's exec tracing logs through loggers of its own.
	os.Setenv("ARGOCD_LOG_LEVEL", "error")
}

// mainTB is the testing.TB the API server's test harness needs, for
// servers that live as long as TestMain: cleanups run when it returns,
// Fatal unwinds to testMain.
type mainTB struct {
	name     string
	cleanups []func()
	failed   bool
}

type mainFatal string

func (f mainFatal) Error() string { return string(f) }

func (tb *mainTB) cleanup() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}

func (tb *mainTB) Attr(string, string) {}
func (tb *mainTB) Chdir(string)        { panic(mainFatal("Chdir is not supported in TestMain")) }
func (tb *mainTB) Cleanup(f func())    { tb.cleanups = append(tb.cleanups, f) }
func (tb *mainTB) Error(args ...any)   { tb.failed = true; tb.Log(args...) }
func (tb *mainTB) Errorf(f string, a ...any) {
	tb.failed = true
	tb.Logf(f, a...)
}
func (tb *mainTB) Fail()                     { tb.failed = true }
func (tb *mainTB) FailNow()                  { panic(mainFatal(tb.name + " failed")) }
func (tb *mainTB) Failed() bool              { return tb.failed }
func (tb *mainTB) Fatal(args ...any)         { panic(mainFatal(fmt.Sprint(args...))) }
func (tb *mainTB) Fatalf(f string, a ...any) { panic(mainFatal(fmt.Sprintf(f, a...))) }
func (tb *mainTB) Helper()                   {}
func (tb *mainTB) Log(args ...any) {
	if os.Getenv("E2E_LOGS") != "" {
		fmt.Fprintln(os.Stderr, args...)
	}
}
func (tb *mainTB) Logf(f string, a ...any) {
	if os.Getenv("E2E_LOGS") != "" {
		fmt.Fprintf(os.Stderr, f+"\n", a...)
	}
}
func (tb *mainTB) Name() string             { return tb.name }
func (tb *mainTB) Setenv(k, v string)       { os.Setenv(k, v) }
func (tb *mainTB) Skip(args ...any)         { tb.Fatal(args...) }
func (tb *mainTB) Skipf(f string, a ...any) { tb.Fatalf(f, a...) }
func (tb *mainTB) SkipNow()                 { tb.FailNow() }
func (tb *mainTB) Skipped() bool            { return false }
func (tb *mainTB) TempDir() string {
	d, err := os.MkdirTemp(tmpRoot, "tb")
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
