package servers

import (
	"k8s.io/apiserver/pkg/storage/storagebackend"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/utils/ktesting"
)

// StartKubeAPIServer starts a kube-apiserver that keeps its objects under
// /registry-NAME of the etcd at etcdURL, authorizes with RBAC and
// authenticates the static tokens of the file tokens; it stops when t ends.
func StartKubeAPIServer(t ktesting.TB, name, etcdURL, tokens string) kubeapiservertesting.TestServer {
	t.Helper()
	sc := storagebackend.NewDefaultConfig("/registry-"+name, nil)
	sc.Transport.ServerList = []string{etcdURL}
	ts, err := kubeapiservertesting.StartTestServer(t, kubeapiservertesting.NewDefaultTestServerOptions(), []string{
		"--authorization-mode=RBAC",
		"--token-auth-file=" + tokens,
	}, sc)
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(ts.TearDownFn)
	return ts
}
