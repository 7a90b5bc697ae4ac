package controller

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

const (
	syncTimeout = 3 * time.Minute
	// refreshes is how many hard refreshes a Synced app must stay Synced
	// through without another sync.
	refreshes = 5
)

var (
	externalSecretGVR = schema.GroupVersionResource{Group: "external-secrets.io", Version: "v1", Resource: "externalsecrets"}
	configMapGVR      = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// createAll creates the apps, then waits until each is Synced at rev.
func createAll(t *testing.T, apps []app, rev string) {
	t.Helper()
	for _, a := range apps {
		a.create(t)
	}
	for _, a := range apps {
		got := waitApp(t, a.name, "Synced at "+rev[:12], syncTimeout, synced(rev))
		t.Logf("%s: Synced after %d sync(s), %d resources", a.name, syncs(got), len(got.Status.Resources))
	}
}

// staysSynced hard-refreshes every app refreshes times and checks that each
// is still Synced, every resource Synced, after exactly one sync operation
// that succeeded.
func staysSynced(t *testing.T, apps []app, rev string) {
	t.Helper()
	for range refreshes {
		for _, a := range apps {
			hardRefresh(t, a.name)
		}
	}
	for _, a := range apps {
		got := getApp(t, a.name)
		if !synced(rev)(got) {
			t.Errorf("%s: not Synced after %d hard refreshes\n%s", a.name, refreshes, describe(got))
			continue
		}
		if n := syncs(got); n != 1 {
			t.Errorf("%s: %d sync operations, want exactly 1 (a selfHeal loop?)\n%s", a.name, n, describe(got))
		}
		if op := got.Status.OperationState; op.Phase != "Succeeded" {
			t.Errorf("%s: operation %s: %s", a.name, op.Phase, op.Message)
		}
		if len(got.Status.Resources) == 0 {
			t.Errorf("%s: no resources", a.name)
		}
		if oos := outOfSyncResources(got); len(oos) > 0 {
			t.Errorf("%s: resources OutOfSync: %v", a.name, oos)
		}
		for _, c := range got.Status.Conditions {
			t.Errorf("%s: condition %s: %s", a.name, c.Type, c.Message)
		}
	}
}

// TestArgoCDControllerSelfHeal is scenario 1: the bundled examples (plain,
// Helm, Kustomize) and one app per operator, rendered and filled by the
// cmp-defaults plugin, ServerSideApply=true, automated sync with prune and
// selfHeal. Argo CD v3.6 diffs such apps with Server-Side Diff; users who
// turn it off (ServerSideDiff=false, to spare the API server a dry run per
// resource per refresh) get the client-side diff, where the defaults show.
// In both, every app is Synced after its first sync and stays Synced
// through 5 hard refreshes with exactly one sync operation.
func TestArgoCDControllerSelfHeal(t *testing.T) {
	installOperators(t)
	for _, c := range []struct{ prefix, compare string }{
		{"ssd", ""},
		{"csd", "ServerSideDiff=false"},
	} {
		name := map[string]string{"ssd": "server-side-diff", "csd": "client-side-diff"}[c.prefix]
		t.Run(name, func(t *testing.T) {
			apps := append(examples(t, "heal-"+c.prefix), operators(t, "heal-"+c.prefix)...)
			apps = append(apps, unsetValues(t, "heal-"+c.prefix))
			for i := range apps {
				apps[i].operators = clusterOperators()
				apps[i].syncOptions = []string{"ServerSideApply=true"}
				apps[i].compareOptions = c.compare
				apps[i].automated = true
			}
			rev := head(t)
			createAll(t, apps, rev)
			staysSynced(t, apps, rev)
			// What the sync stored is what cmp-defaults filled: the
			// default the server would add is in the live object because
			// Argo CD applied it, owned by argocd-controller.
			es := cluster.get(t, externalSecretGVR, "heal-"+c.prefix+"-plain", "datadog-api-key")
			if es == nil {
				t.Fatal("the plain example's ExternalSecret was not created")
			}
			data, _, _ := unstructured.NestedSlice(es.Object, "spec", "data")
			if len(data) < 2 {
				t.Fatalf("ExternalSecret spec.data: %v", data)
			}
			if p, _, _ := unstructured.NestedString(data[1].(map[string]any), "remoteRef", "nullBytePolicy"); p != "Ignore" {
				t.Errorf("live spec.data[1].remoteRef.nullBytePolicy = %q, want Ignore", p)
			}
		})
	}
}

// TestArgoCDControllerControl is scenario 2, the control: the objects of
// scenario 1 as plain directory sources, without the plugin, under the same
// sync policy with the client-side diff (ServerSideDiff=false). Argo CD
// v3.6's client-side diff drops live fields the manifest does not name,
// inside list items too, so defaults the manifest leaves out do not show;
// a default that replaces a field the manifest sets to null (as a Helm
// template renders an unset value) does. The app with such nulls must be
// OutOfSync, and stays so under automated sync with selfHeal; every resource Argo CD
// reports OutOfSync in any app is one cmp-defaults fills. If the null app
// were Synced without the plugin, scenario 1 would prove nothing for it.
// (Measured: selfHeal does not sync it again at the same revision; it just
// stays OutOfSync.)
func TestArgoCDControllerControl(t *testing.T) {
	installOperators(t)
	apps := append(examples(t, "ctl", "plain"), operators(t, "ctl")...)
	apps = append(apps, unsetValues(t, "ctl"))
	for i := range apps {
		apps[i].syncOptions = []string{"ServerSideApply=true"}
		apps[i].compareOptions = "ServerSideDiff=false"
		apps[i].automated = true
	}
	rev := head(t)
	for _, a := range apps {
		a.create(t)
	}
	for _, a := range apps {
		waitApp(t, a.name, "synced once", syncTimeout, func(a *v1alpha1.Application) bool {
			return syncs(a) >= 1 && a.Status.Sync.Revision == rev
		})
		// The verdict of a comparison after the sync.
		hardRefresh(t, a.name)
		got := getApp(t, a.name)
		dir := filepath.Join(repo.dir, filepath.FromSlash(a.path))
		var filled []string
		for _, f := range []string{"externalsecret.yaml", "configmap.yaml", "objects.yaml"} {
			if p := filepath.Join(dir, f); fileExists(p) {
				filled = append(filled, filledResources(t, p, a.namespace, clusterOperators())...)
			}
		}
		oos := outOfSyncResources(got)
		for _, r := range oos {
			if !slices.Contains(filled, r) {
				t.Errorf("%s: %s is OutOfSync but cmp-defaults fills nothing in it (filled: %v)", a.name, r, filled)
			}
		}
		t.Logf("%s without the plugin: %s, OutOfSync %v; cmp-defaults fills %v", a.name, got.Status.Sync.Status, oos, filled)
		if a.name == "ctl-unset-values" && got.Status.Sync.Status != v1alpha1.SyncStatusCodeOutOfSync {
			t.Errorf("%s: %s without cmp-defaults; the control must be OutOfSync\n%s", a.name, got.Status.Sync.Status, describe(got))
		}
	}
	// It stays OutOfSync: automated sync with selfHeal does not make it
	// converge.
	time.Sleep(10 * time.Second)
	hardRefresh(t, "ctl-unset-values")
	got := getApp(t, "ctl-unset-values")
	if got.Status.Sync.Status != v1alpha1.SyncStatusCodeOutOfSync {
		t.Errorf("ctl-unset-values: %s after selfHeal had its chance\n%s", got.Status.Sync.Status, describe(got))
	}
	t.Logf("ctl-unset-values: %d sync operation(s), still %s", syncs(got), got.Status.Sync.Status)
}

// TestArgoCDControllerServerSideDiff is scenario 3: Server-Side Diff
// (compare option ServerSideDiff=true) with client-side apply, filled by the
// plugin: Synced after one sync, and through 5 hard refreshes.
func TestArgoCDControllerServerSideDiff(t *testing.T) {
	installOperators(t)
	apps := examples(t, "ssd")
	for i := range apps {
		apps[i].operators = clusterOperators()
		apps[i].compareOptions = "ServerSideDiff=true"
		apps[i].automated = true
	}
	rev := head(t)
	createAll(t, apps, rev)
	staysSynced(t, apps, rev)
	// Client-side apply: kubectl's last-applied annotation is there.
	es := cluster.get(t, externalSecretGVR, "ssd-plain", "datadog-api-key")
	if es == nil || es.GetAnnotations()[corev1.LastAppliedConfigAnnotation] == "" {
		t.Errorf("the ExternalSecret was not applied client-side: %v", es)
	}
}

// TestArgoCDControllerFailClosed is scenario 5: a commit adds an invalid
// object to a Synced app (automated sync with prune). The Application gets a
// ComparisonError carrying cmp-defaults' message, no sync runs, and the live
// objects remain: a failed render never turns into an empty manifest set
// that prune would act on.
func TestArgoCDControllerFailClosed(t *testing.T) {
	installOperators(t)
	apps := examples(t, "fail", "plain")
	a := apps[0]
	a.operators = clusterOperators()
	a.syncOptions = []string{"ServerSideApply=true"}
	a.automated = true
	rev := head(t)
	createAll(t, []app{a}, rev)

	broken := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  key: [unterminated\n"
	bad := repo.commit(t, "an invalid object", map[string]string{a.path + "/broken.yaml": broken})
	hardRefresh(t, a.name)
	got := waitApp(t, a.name, "with a ComparisonError", syncTimeout, func(a *v1alpha1.Application) bool {
		for _, c := range a.Status.Conditions {
			if c.Type == v1alpha1.ApplicationConditionComparisonError {
				return true
			}
		}
		return false
	})
	var msg string
	for _, c := range got.Status.Conditions {
		if c.Type == v1alpha1.ApplicationConditionComparisonError {
			msg = c.Message
		}
	}
	t.Logf("ComparisonError: %s", msg)
	for _, want := range []string{"`cmp-defaults generate` failed", "broken.yaml"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the ComparisonError lacks %q: %s", want, msg)
		}
	}
	// Give automated sync the time it would take to act (it runs right
	// after a comparison), then check nothing was synced or pruned.
	time.Sleep(5 * time.Second)
	hardRefresh(t, a.name)
	got = getApp(t, a.name)
	if n := syncs(got); n != 1 {
		t.Errorf("%d sync operations after the invalid commit, want still 1\n%s", n, describe(got))
	}
	if got.Status.Sync.Status == v1alpha1.SyncStatusCodeSynced && got.Status.Sync.Revision == bad {
		t.Errorf("Synced at the invalid revision\n%s", describe(got))
	}
	if cluster.get(t, externalSecretGVR, "fail-plain", "datadog-api-key") == nil {
		t.Error("the ExternalSecret was pruned")
	}
	if cluster.get(t, configMapGVR, "fail-plain", "datadog-agent-config") == nil {
		t.Error("the ConfigMap was pruned")
	}
	if cm, _ := cluster.kube.CoreV1().ConfigMaps("fail-plain").Get(context.Background(), "broken", metav1.GetOptions{}); cm != nil && cm.Name != "" {
		t.Error("the invalid ConfigMap was created")
	}
}
