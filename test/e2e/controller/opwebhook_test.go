package controller

// An operator's own webhook (package servers) registered in this suite's
// API server.
import (
	"context"
	"path/filepath"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
)

// operatorWebhook is an operator's own admission webhook process.
type operatorWebhook = servers.Webhook

// startOperatorWebhook builds ../webhook-NAME and starts it with env added
// to its environment; it stops when t ends. TestMain moved HOME: the build
// uses the caller's caches.
func startOperatorWebhook(t tb, name string, env ...string) *operatorWebhook {
	t.Helper()
	o := webhookOptions(name)
	o.Env = env
	return servers.StartWebhook(t, o)
}

func webhookOptions(name string) servers.Options {
	return servers.Options{
		Src: filepath.Join("..", "webhook-"+name), BinDir: filepath.Join(tmpRoot, "bin"),
		CertDir: filepath.Join(tmpRoot, "webhook-cert"), GoEnv: []string{"GOMODCACHE=" + modCache, "GOCACHE=" + goCache},
	}
}

// moduleDir is where a module that ../webhook-NAME requires is in the Go
// module cache.
func moduleDir(t tb, name, module string) string {
	t.Helper()
	return webhookOptions(name).ModuleDir(t, module)
}

// installOperatorCRDs applies the operator's own CRDs from its module,
// the files of every glob (one per controller of the operator).
func installOperatorCRDs(t tb, w *operatorWebhook, s *kubeServer, globs ...string) {
	t.Helper()
	var files []string
	for _, g := range globs {
		found, _ := filepath.Glob(filepath.Join(w.Dir, g))
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Fatalf("%s: no CRDs at %v", w.Module, globs)
	}
	var crds []*apiextv1.CustomResourceDefinition
	for _, o := range readObjects(t, files...) {
		crd := &apiextv1.CustomResourceDefinition{}
		fromUnstructured(t, o, crd)
		w.PointConversion(crd)
		crds = append(crds, crd)
	}
	s.applyCRDs(t, crds)
}

// registerOperatorWebhooks creates the MutatingWebhookConfigurations of
// the operator's manifests (files in its module, one per controller) with
// the service reference replaced by the process's URL and CA, and deletes
// them when t ends, so that no later request waits on a stopped webhook.
func registerOperatorWebhooks(t tb, w *operatorWebhook, s *kubeServer, manifests ...string) {
	t.Helper()
	ctx := context.Background()
	api := s.kube.AdmissionregistrationV1().MutatingWebhookConfigurations()
	var files []string
	for _, m := range manifests {
		files = append(files, filepath.Join(w.Dir, m))
	}
	cfgs, err := w.Configurations(readObjects(t, files...))
	if err != nil {
		t.Fatalf("%v: %v", manifests, err)
	}
	for _, cfg := range cfgs {
		if _, err := api.Create(ctx, cfg, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = api.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })
	}
}
