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

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
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
	if binary, err = e2ekit.CMPDefaultsBinary(filepath.Join(tmpRoot, "bin"), repoRoot(), nil); err != nil {
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
	if !servers.QuietKlog() {
		return
	}
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
