package apiserver

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	gitopsio "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/io"
	"k8s.io/client-go/rest"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
)

// Everything the suite writes lives under one temporary directory, removed
// at the end: etcd data, API server certificates, kubectl's discovery cache
// and manifest files, kubeconfigs, the cmp-defaults binary, profiles.
var (
	tmpRoot string
	binary  string // the cmp-defaults binary under test
)

const (
	adminToken  = "e2e-admin-token"
	viewerToken = "e2e-viewer-token"
	editorToken = "e2e-editor-token" // a second user who may write, for 'profiles learn --second-context'

)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	tmpRoot, err = os.MkdirTemp("", "cmp-defaults-e2e-apiserver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmpRoot)

	var buildLog io.Writer
	if testing.Verbose() {
		buildLog = os.Stderr
	}
	if binary, err = e2ekit.CMPDefaultsBinary(filepath.Join(tmpRoot, "bin"), repoRoot(), buildLog); err != nil {
		fmt.Fprintln(os.Stderr, "building cmp-defaults:", err)
		return 1
	}

	// Keep temporary files of the API server, kubectl and gitops-engine
	// inside tmpRoot.
	os.Setenv("TMPDIR", tmpRoot)
	os.Setenv("KUBECACHEDIR", filepath.Join(tmpRoot, "kubecache"))
	gitopsio.TempDir = tmpRoot
	servers.QuietKlog()
	return m.Run()
}

// repoRoot is the cmp-defaults repository root, three levels up.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", "..", ".."))
}

// sharedCRDs is ../shared/crds relative to the repository root, or "".
func sharedCRDs() string {
	d := filepath.Join(repoRoot(), "..", "shared", "crds")
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// server is one kube-apiserver on its own embedded etcd.
type server struct {
	cfg        *rest.Config // loopback admin config (system:masters)
	host       string       // https://127.0.0.1:PORT
	kubeconfig string       // contexts "admin" (current) and "viewer" (no RBAC grants)
}

// startServer starts etcd and a kube-apiserver (RBAC authorization, static
// tokens for an admin and a viewer without any grant) and stops both when t
// ends.
func startServer(t *testing.T) *server {
	t.Helper()
	start := time.Now()
	dir, err := os.MkdirTemp(tmpRoot, "server-")
	if err != nil {
		t.Fatal(err)
	}
	etcdURL := servers.StartEtcd(t, filepath.Join(dir, "etcd"))

	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(adminToken+",e2e-admin,1,system:masters\n"+viewerToken+",e2e-viewer,2\n"+editorToken+",e2e-editor,3,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := servers.StartKubeAPIServer(t, "e2e", etcdURL, tokens)

	s := &server{cfg: rest.CopyConfig(ts.ClientConfig)}
	// Argo CD's controller talks to a cluster at QPS 50, burst 100
	// (ARGOCD_K8S_CLIENT_QPS, ARGOCD_K8S_CLIENT_BURST); client-go's default
	// of 5 made the suite wait on its own rate limiter.
	s.cfg.QPS, s.cfg.Burst = 50, 100
	s.host = "https://127.0.0.1:" + strconv.Itoa(ts.ServerOpts.SecureServing.BindPort)
	s.kubeconfig = filepath.Join(dir, "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: %s}
- name: viewer
  user: {token: %s}
- name: editor
  user: {token: %s}
contexts:
- name: admin
  context: {cluster: e2e, user: admin}
- name: viewer
  context: {cluster: e2e, user: viewer}
- name: editor
  context: {cluster: e2e, user: editor}
current-context: admin
`, s.host, adminToken, viewerToken, editorToken)
	if err := os.WriteFile(s.kubeconfig, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver %s ready in %s", s.host, time.Since(start).Round(time.Millisecond))
	return s
}
