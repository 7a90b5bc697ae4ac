package controller

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
)

// webhookOperator is an operator whose admission defaults come from a
// mutating webhook: scenario 6 runs once one is listed in
// webhookOperators.
type webhookOperator struct {
	// operator and release select the shipped profile that holds the
	// webhook's mutations (the plugin's operators parameter).
	operator, release string
	// objects is a directory of realistic objects the webhook mutates.
	objects string
	// install registers the operator in the in-cluster API server: its CRDs
	// and its real webhook served on loopback, with a
	// MutatingWebhookConfiguration; it stops the webhook when t ends.
	install func(t *testing.T, s *kubeServer)
}

// webhookOperators are the webhook-defaulted operators of scenario 6, each
// with its webhook server module under test/e2e/.
var webhookOperators = []webhookOperator{
	{"cloudnative-pg", "1.30.0", filepath.Join("testdata", "webhook", "cloudnative-pg"), installCNPG},
	{"tekton-pipelines", "1.15.0", filepath.Join("testdata", "webhook", "tekton-pipelines"), installTekton},
	{"cluster-api", "1.14.0", filepath.Join("testdata", "webhook", "cluster-api"), installClusterAPI},
}

// sameAsLive: what the plugin fills for each object equals what the API
// server stores after the operator's webhook, spec for spec. Argo CD v3.6.1
// does not show a webhook default the manifest lacks, in any diff mode
// (measured: with cloudnative-pg@1.28.0 before its mutations shipped, and
// imageName: null in the manifest, the app is Synced too), so Synced alone
// would hold without the mutations; this check does not.
func sameAsLive(t *testing.T, w webhookOperator, namespace string) {
	t.Helper()
	for p := range copyTree(t, w.objects, nil) {
		filled := readObjects(t, fillFile(t, filepath.Join(w.objects, p), w.operator+"@"+w.release))
		for _, o := range filled {
			gv, _ := schema.ParseGroupVersion(o.GetAPIVersion())
			gvr := gv.WithResource(strings.ToLower(o.GetKind()) + "s")
			live := cluster.get(t, gvr, namespace, o.GetName())
			if live == nil {
				t.Errorf("%s %s/%s: not in the cluster", o.GetKind(), namespace, o.GetName())
				continue
			}
			want, got := jsonValue(t, o.Object["spec"]), jsonValue(t, live.Object["spec"])
			if !equality.Semantic.DeepEqual(want, got) {
				t.Errorf("%s %s/%s: the plugin's spec is not what the API server stores after the webhook:\nfilled: %s\nlive:   %s", o.GetKind(), namespace, o.GetName(), mustJSON(want), mustJSON(got))
			}
		}
	}
}

func jsonValue(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(mustJSON(v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// installCNPG: CloudNativePG v1.30.0's CRDs and mutating webhooks as its
// module ships them, the webhook built from test/e2e/webhook-cnpg and run
// with the configuration of the default installation (MONITORING_QUERIES_CONFIGMAP,
// as in test/e2e/apiserver's cnpgEnv).
func installCNPG(t *testing.T, s *kubeServer) {
	w := startOperatorWebhook(t, "cnpg", "MONITORING_QUERIES_CONFIGMAP=cnpg-default-monitoring")
	if w.Version != "v1.30.0" {
		t.Fatalf("webhook-cnpg serves %s@%s, the profile under test is v1.30.0", w.Module, w.Version)
	}
	installOperatorCRDs(t, w, s, filepath.Join("config", "crd", "bases", "*.yaml"))
	registerOperatorWebhooks(t, w, s, filepath.Join("config", "webhook", "manifests.yaml"))
	s.ensureNamespace(t, "cnpg-probe")
	servers.WaitAdmitted(t, s.dyn, schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusters"}, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": "probe", "namespace": "cnpg-probe"},
		"spec":     map[string]any{"instances": int64(1), "storage": map[string]any{"size": "1Gi"}},
	}}, func(o *unstructured.Unstructured) bool {
		v, _, _ := unstructured.NestedString(o.Object, "spec", "logLevel")
		return v != ""
	})
	// No CloudNativePG controller runs here, so a Cluster never gets a
	// status, and Argo CD's built-in health check for Cluster fails on
	// that (a ComparisonError: it indexes status fields that are nil).
	// Users with such a gap override the check in argocd-cm; this one
	// says Healthy, as health is not what this scenario is about.
	setArgoCM(t, s, "resource.customizations.health.postgresql.cnpg.io_Cluster", `hs = {}
hs.status = "Healthy"
hs.message = "no CloudNativePG controller in this test"
return hs
`)
}

// installTekton: Tekton Pipelines v1.15.0's CRDs and defaulting webhook as
// its module ships them (config/300-crds, config/500-webhooks.yaml), the
// webhook built from test/e2e/webhook-tekton, configured from the module's
// config/ ConfigMaps, serving the rules and the conversion its reconcilers
// would write.
func installTekton(t *testing.T, s *kubeServer) {
	w := startOperatorWebhook(t, "tekton", "OPERATOR_MODULE_DIR="+moduleDir(t, "tekton", "github.com/tektoncd/pipeline"))
	if w.Version != "v1.15.0" {
		t.Fatalf("webhook-tekton serves %s@%s, the profile under test is v1.15.0", w.Module, w.Version)
	}
	installOperatorCRDs(t, w, s, filepath.Join("config", "300-crds", "*.yaml"))
	registerOperatorWebhooks(t, w, s, filepath.Join("config", "500-webhooks.yaml"))
	s.ensureNamespace(t, "tekton-probe")
	servers.WaitAdmitted(t, s.dyn, schema.GroupVersionResource{Group: "tekton.dev", Version: "v1", Resource: "taskruns"}, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tekton.dev/v1", "kind": "TaskRun",
		"metadata": map[string]any{"name": "probe", "namespace": "tekton-probe"},
		"spec":     map[string]any{"taskRef": map[string]any{"name": "build"}},
	}}, func(o *unstructured.Unstructured) bool {
		v, _, _ := unstructured.NestedString(o.Object, "spec", "timeout")
		return v != ""
	})
}

// installClusterAPI: Cluster API v1.14.0's CRDs and mutating webhooks of
// its three controllers (the core, the kubeadm control plane, the kubeadm
// bootstrap provider) as its module ships them, the webhook built from
// test/e2e/webhook-capi with this API server's kubeconfig, as the
// controllers' managers read the cluster.
func installClusterAPI(t *testing.T, s *kubeServer) {
	w := startOperatorWebhook(t, "capi", "KUBECONFIG="+s.kubeconfig)
	if w.Version != "v1.14.0" {
		t.Fatalf("webhook-capi serves %s@%s, the profile under test is v1.14.0", w.Module, w.Version)
	}
	installOperatorCRDs(t, w, s, filepath.Join("core", "config", "crd", "bases", "*.yaml"),
		filepath.Join("controlplane", "kubeadm", "config", "crd", "bases", "*.yaml"),
		filepath.Join("bootstrap", "kubeadm", "config", "crd", "bases", "*.yaml"))
	registerOperatorWebhooks(t, w, s, filepath.Join("core", "config", "webhook", "manifests.yaml"),
		filepath.Join("controlplane", "kubeadm", "config", "webhook", "manifests.yaml"),
		filepath.Join("bootstrap", "kubeadm", "config", "webhook", "manifests.yaml"))
	s.ensureNamespace(t, "capi-probe")
	servers.WaitAdmitted(t, s.dyn, schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "machinehealthchecks"}, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineHealthCheck",
		"metadata": map[string]any{"name": "probe", "namespace": "capi-probe"},
		"spec":     map[string]any{"clusterName": "probe", "selector": map[string]any{"matchLabels": map[string]any{"pool": "probe"}}},
	}}, func(o *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedInt64(o.Object, "spec", "checks", "nodeStartupTimeoutSeconds")
		return found
	})
}

// setArgoCM sets one key of argocd-cm and removes it when t ends; the
// controller's settings manager watches the ConfigMap.
func setArgoCM(t *testing.T, s *kubeServer, key, value string) {
	t.Helper()
	ctx := context.Background()
	cms := s.kube.CoreV1().ConfigMaps(argoNS)
	edit := func(set bool) error {
		cm, err := cms.Get(ctx, "argocd-cm", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		if set {
			cm.Data[key] = value
		} else {
			delete(cm.Data, key)
		}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	}
	if err := edit(true); err != nil {
		t.Fatalf("argocd-cm: %v", err)
	}
	t.Cleanup(func() { _ = edit(false) })
}

// TestArgoCDControllerWebhookOperator is scenario 6: an operator whose
// defaults a mutating webhook adds, filled by the plugin, Synced through the
// controller with its real webhook, under both diff strategies and with
// exactly one sync, like scenario 1; and the plugin's objects equal what
// the API server stores after the webhook (sameAsLive), which is what fails
// without the profile's mutations.
func TestArgoCDControllerWebhookOperator(t *testing.T) {
	if len(webhookOperators) == 0 {
		t.Skip("no webhook-defaulted operator registered yet: see webhookOperators")
	}
	for _, w := range webhookOperators {
		t.Run(w.operator+"@"+w.release, func(t *testing.T) {
			w.install(t, cluster)
			for _, c := range []struct{ prefix, compare string }{{"ssd", ""}, {"csd", "ServerSideDiff=false"}} {
				prefix := "wh-" + c.prefix + "-" + w.operator
				files := map[string]string{}
				for p, content := range copyTree(t, w.objects, nil) {
					files[prefix+"/"+p] = content
				}
				a := app{
					name: prefix, path: prefix, namespace: prefix,
					operators:      map[string]string{w.operator: w.release},
					syncOptions:    []string{"ServerSideApply=true", "CreateNamespace=true"},
					compareOptions: c.compare,
					automated:      true,
				}
				rev := repo.commit(t, "webhook operator "+w.operator, files)
				createAll(t, []app{a}, rev)
				staysSynced(t, []app{a}, rev)
				sameAsLive(t, w, prefix)
			}
		})
	}
}
