package apiserver

import (
	"context"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
)

// operatorWebhook is an operator's own admission webhook process.
type operatorWebhook = servers.Webhook

// startOperatorWebhookBuild builds ../webhook-NAME with go build flags
// (another release's go.mod with -modfile, the build tags its API needs) and
// starts it with env added to its environment (the operator's
// configuration); it stops when the test ends.
func startOperatorWebhookBuild(t *testing.T, name string, flags []string, env ...string) *operatorWebhook {
	t.Helper()
	return servers.StartWebhook(t, servers.Options{
		Src: filepath.Join("..", "webhook-"+name), Flags: flags, Env: env,
		BinDir: t.TempDir(), CertDir: filepath.Join(tmpRoot, "webhook-cert"),
	})
}

// moduleDir is where a module that ../webhook-NAME requires (with the
// -modfile of flags, if any) is in the Go module cache.
func moduleDir(t *testing.T, name, module string, flags ...string) string {
	t.Helper()
	return servers.Options{Src: filepath.Join("..", "webhook-"+name), Flags: flags}.ModuleDir(t, module)
}

// register installs the operator's MutatingWebhookConfigurations from its
// install manifest (a file in its module) as the operator ships them,
// with the service reference replaced by the process's URL and CA (and its
// path and rules, when the manifest leaves them to the operator). prefix
// is put before each configuration's name, as the install's kustomization
// does where several controllers' manifests name theirs alike.
func (a *argo) registerOperatorWebhooks(t *testing.T, w *operatorWebhook, manifest, prefix string) []*admissionregistrationv1.MutatingWebhookConfiguration {
	t.Helper()
	out, err := w.Configurations(readObjects(t, filepath.Join(w.Dir, manifest)))
	if err != nil {
		t.Fatalf("%s: %v", manifest, err)
	}
	for _, cfg := range out {
		cfg.Name = prefix + cfg.Name
		if _, err := a.core.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(context.Background(), cfg, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	return out
}

// waitAdmitted waits until the webhook mutates probe as mutated says.
func (a *argo) waitAdmitted(t *testing.T, probe *unstructured.Unstructured, mutated func(*unstructured.Unstructured) bool) {
	t.Helper()
	servers.WaitAdmitted(t, a.dyn, a.mapping(t, probe).Resource, probe, mutated)
}

// accepted keeps the objects the API server accepts from a server-side
// apply, as Argo CD's ServerSideApply=true sync sends them (a dry run in
// namespace ns): a sample the server rejects is no drift question.
func (a *argo) accepted(t *testing.T, objs []*unstructured.Unstructured, ns string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, o := range objs {
		m := a.mapping(t, o)
		c := o.DeepCopy()
		c.SetNamespace(ns)
		if _, err := a.dyn.Resource(m.Resource).Namespace(ns).Apply(context.Background(), c.GetName(), c, metav1.ApplyOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "e2e-accept", Force: true}); err != nil {
			t.Logf("%s/%s: rejected by the API server: %v", o.GetKind(), o.GetName(), err)
			continue
		}
		out = append(out, o)
	}
	return out
}
