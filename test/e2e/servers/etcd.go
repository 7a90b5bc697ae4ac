// Package servers starts what the suites of test/e2e run beside their code
// under test, on loopback only: an embedded etcd, and an operator's own
// admission webhook as a process of its own.
package servers

import (
	"flag"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/klog/v2"
)

// TB is what the helpers need of a test: *testing.T, or a suite's stand-in
// for servers that live as long as TestMain.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
}

// FreePort is a loopback TCP port free when asked.
func FreePort(t TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// StartEtcd starts an etcd with its data in dir and its log in dir.log
// (on stderr with E2E_LOGS set), stops it when t ends and returns its
// client URL.
func StartEtcd(t TB, dir string) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name = "e2e"
	cfg.Dir = dir
	cfg.LogLevel = "error"
	if os.Getenv("E2E_LOGS") == "" {
		cfg.LogOutputs = []string{dir + ".log"}
	}
	cfg.UnsafeNoFsync = true
	cu := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(FreePort(t))}
	pu := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(FreePort(t))}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		t.Fatal("etcd did not become ready in 60s")
	}
	t.Cleanup(e.Close)
	return cu.String()
}

// QuietKlog keeps klog's output (the API server's) out of the test output
// unless E2E_LOGS is set; it reports whether it did.
func QuietKlog() bool {
	if os.Getenv("E2E_LOGS") != "" {
		return false
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	return true
}
