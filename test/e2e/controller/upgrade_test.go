package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// TestArgoCDControllerOperatorUpgrade is scenario 4, the finding of
// docs/migrating.md shown by the controller itself. On a second API server,
// registered in Argo CD as a cluster the way 'argocd cluster add' does,
// ExternalSecrets filled with external-secrets@2.5.0 are Synced
// (ServerSideApply=true, client-side diff, automated sync with selfHeal).
// External Secrets Operator's CRD is upgraded from v2.5.0 to v2.7.0 (the
// nullBytePolicy default is gone, templateFrom[].valuesDecodingStrategy
// gets one); the stored objects keep the 2.5.0 default Argo CD applied. The
// Application's operators parameter is switched to 2.7.0: it converges to
// Synced, stays Synced through hard refreshes without another sync, and the
// live object is the 2.7.0 fill (nullBytePolicy gone, removed by the
// server-side apply of argocd-controller, valuesDecodingStrategy set).
func TestArgoCDControllerOperatorUpgrade(t *testing.T) {
	s := startKubeServer(t, "upgrade")
	registerCluster(t, s)

	esFile := filepath.Join(repoRoot(), "test", "e2e", "apiserver", "testdata", "external-secrets", "objects.yaml")
	var docs []string
	for _, o := range readObjects(t, esFile) {
		if o.GetKind() != "ExternalSecret" {
			continue
		}
		s.ensureNamespace(t, o.GetNamespace())
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(y))
	}
	rev := repo.commit(t, "ExternalSecrets for the upgrade", map[string]string{"upgrade/objects.yaml": strings.Join(docs, "---\n")})
	// v2.7.0's CRD still declares nullBytePolicy (without a default), as
	// upstream does: both CRDs declare every field of the 2.5.0 fill.
	filled25 := fillFile(t, esFile, "external-secrets@2.5.0")
	crd := func(release string) {
		s.applyCRDs(t, []*apiextv1.CustomResourceDefinition{crdFromProfile(t, "external-secrets/v"+release+".yaml", "ExternalSecret", "externalsecrets", esFile, filled25)})
	}
	crd("2.5.0")

	a := app{
		name: "upgrade", path: "upgrade", namespace: "app", server: s.host,
		operators:      map[string]string{"external-secrets": "2.5.0"},
		syncOptions:    []string{"ServerSideApply=true"},
		compareOptions: "ServerSideDiff=false",
		automated:      true,
	}
	createAll(t, []app{a}, rev)
	t.Cleanup(func() {
		_ = argo.apps.ArgoprojV1alpha1().Applications(argoNS).Delete(context.Background(), a.name, metav1.DeleteOptions{})
	})
	staysSynced(t, []app{a}, rev)

	// The operator is upgraded; the Application still fills for 2.5.0. The
	// stored object keeps the 2.5.0 default Argo CD applied.
	crd("2.7.0")
	hardRefresh(t, a.name)
	got := getApp(t, a.name)
	t.Logf("between the CRD upgrade and the switch: %s, OutOfSync %v", got.Status.Sync.Status, outOfSyncResources(got))
	if v := nullBytePolicy(t, s); v != "Ignore" {
		t.Fatalf("before the switch, live spec.data[0].remoteRef.nullBytePolicy = %q, want the 2.5.0 default Ignore", v)
	}

	// The switch: the operators parameter names the new release.
	patch := `{"spec":{"source":{"plugin":{"name":"cmp-defaults","parameters":[{"name":"operators","map":{"external-secrets":"2.7.0"}}]}}}}`
	if _, err := argo.apps.ArgoprojV1alpha1().Applications(argoNS).Patch(context.Background(), a.name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got = waitApp(t, a.name, "Synced after the switch", syncTimeout, func(app *v1alpha1.Application) bool {
		op := app.Status.OperationState
		return synced(rev)(app) && op.SyncResult != nil && strings.Contains(fmt.Sprint(op.SyncResult.Source.Plugin), "2.7.0")
	})
	before := syncs(got)
	for range refreshes {
		hardRefresh(t, a.name)
	}
	got = getApp(t, a.name)
	if !synced(rev)(got) || syncs(got) != before {
		t.Errorf("not Synced without further syncs after the switch (%d syncs before the refreshes)\n%s", before, describe(got))
	}
	if oos := outOfSyncResources(got); len(oos) > 0 {
		t.Errorf("OutOfSync after the switch: %v", oos)
	}

	live := s.get(t, externalSecretGVR, "app", "app-config")
	if live == nil {
		t.Fatal("app/app-config is gone")
	}
	if v := nullBytePolicy(t, s); v != "" {
		t.Errorf("live spec.data[0].remoteRef.nullBytePolicy = %q: the 2.5.0 default was not removed by the 2.7.0 sync", v)
	}
	tf, _, _ := unstructured.NestedSlice(live.Object, "spec", "target", "template", "templateFrom")
	if len(tf) == 0 {
		t.Fatal("live spec.target.template.templateFrom is empty")
	}
	if v := findString(tf[0], "valuesDecodingStrategy"); v != "None" {
		t.Errorf("live templateFrom[0] valuesDecodingStrategy = %q, want None (filled by 2.7.0)", v)
	}
}

// nullBytePolicy is spec.data[0].remoteRef.nullBytePolicy of the live
// ExternalSecret app/app-config ("" when absent).
func nullBytePolicy(t *testing.T, s *kubeServer) string {
	t.Helper()
	live := s.get(t, externalSecretGVR, "app", "app-config")
	if live == nil {
		t.Fatal("app/app-config is gone")
	}
	data, _, _ := unstructured.NestedSlice(live.Object, "spec", "data")
	if len(data) == 0 {
		t.Fatal("app/app-config has no spec.data")
	}
	v, _, _ := unstructured.NestedString(data[0].(map[string]any), "remoteRef", "nullBytePolicy")
	return v
}

// findString returns the first string value of a field named key anywhere in v.
func findString(v any, key string) string {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v[key].(string); ok {
			return s
		}
		for _, x := range v {
			if s := findString(x, key); s != "" {
				return s
			}
		}
	case []any:
		for _, x := range v {
			if s := findString(x, key); s != "" {
				return s
			}
		}
	}
	return ""
}

// registerCluster adds s to Argo CD as 'argocd cluster add' does: a
// Secret labelled as a cluster in Argo CD's namespace, with the server URL
// and a bearer token.
func registerCluster(t *testing.T, s *kubeServer) {
	t.Helper()
	config, err := json.Marshal(map[string]any{
		"bearerToken":     adminToken,
		"tlsClientConfig": map[string]any{"insecure": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "cluster-" + s.name,
			Namespace: argoNS,
			Labels:    map[string]string{common.LabelKeySecretType: common.LabelValueSecretTypeCluster},
		},
		StringData: map[string]string{"name": s.name, "server": s.host, "config": string(config)},
	}
	if _, err := cluster.kube.CoreV1().Secrets(argoNS).Create(context.Background(), sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cluster.kube.CoreV1().Secrets(argoNS).Delete(context.Background(), sec.Name, metav1.DeleteOptions{})
	})
	// The controller learns about the cluster through its informer.
	time.Sleep(time.Second)
}
