package controller

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// app describes one Application of a scenario.
type app struct {
	name      string
	path      string // in the Git repository
	namespace string // destination namespace
	server    string // destination server; in-cluster when empty
	// operators is the plugin's operators parameter; nil: no plugin (a
	// plain directory, Helm or Kustomize source rendered by Argo CD).
	operators map[string]string
	// syncOptions of spec.syncPolicy; compareOptions is the
	// argocd.argoproj.io/compare-options annotation.
	syncOptions    []string
	compareOptions string
	automated      bool // automated sync with prune and selfHeal
	noSelfHeal     bool // automated sync without selfHeal
}

func (a app) manifest() string {
	var b strings.Builder
	fmt.Fprintf(&b, "metadata:\n  name: %s\n  namespace: %s\n", a.name, argoNS)
	if a.compareOptions != "" {
		fmt.Fprintf(&b, "  annotations: {argocd.argoproj.io/compare-options: %q}\n", a.compareOptions)
	}
	server := a.server
	if server == "" {
		server = inCluster
	}
	fmt.Fprintf(&b, "spec:\n  project: default\n  destination: {server: %q, namespace: %s}\n", server, a.namespace)
	fmt.Fprintf(&b, "  source:\n    repoURL: %q\n    targetRevision: main\n    path: %s\n", repo.url, a.path)
	if a.operators != nil {
		b.WriteString("    plugin:\n      name: cmp-defaults\n      parameters:\n        - name: operators\n          map:\n")
		var names []string
		for n := range a.operators {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "            %s: %q\n", n, a.operators[n])
		}
	}
	b.WriteString("  syncPolicy:\n")
	if a.automated {
		fmt.Fprintf(&b, "    automated: {prune: true, selfHeal: %t}\n", !a.noSelfHeal)
	}
	fmt.Fprintf(&b, "    syncOptions: [%s]\n", strings.Join(a.syncOptions, ", "))
	return b.String()
}

// create creates the Application in namespace argocd.
func (a app) create(t testing.TB) {
	t.Helper()
	var obj v1alpha1.Application
	if err := yaml.UnmarshalStrict([]byte(a.manifest()), &obj); err != nil {
		t.Fatalf("Application %s: %v\n%s", a.name, err, a.manifest())
	}
	if _, err := argo.apps.ArgoprojV1alpha1().Applications(argoNS).Create(context.Background(), &obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Application %s: %v", a.name, err)
	}
}

// getApp reads an Application from the API server.
func getApp(t testing.TB, name string) *v1alpha1.Application {
	t.Helper()
	a, err := argo.apps.ArgoprojV1alpha1().Applications(argoNS).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Application %s: %v", name, err)
	}
	return a
}

// waitApp polls the Application until cond holds, or fails with its status.
func waitApp(t testing.TB, name, what string, timeout time.Duration, cond func(*v1alpha1.Application) bool) *v1alpha1.Application {
	t.Helper()
	var last *v1alpha1.Application
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		last = getApp(t, name)
		return cond(last), nil
	})
	if err != nil {
		t.Fatalf("Application %s: not %s after %s\n%s", name, what, timeout, describe(last))
	}
	return last
}

// synced: the last comparison is Synced and Healthy-or-unknown, at the
// revision Git has now, and no operation is running.
func synced(rev string) func(*v1alpha1.Application) bool {
	return func(a *v1alpha1.Application) bool {
		return a.Status.Sync.Status == v1alpha1.SyncStatusCodeSynced && a.Status.Sync.Revision == rev &&
			a.Operation == nil && a.Status.OperationState != nil && a.Status.OperationState.Phase.Completed()
	}
}

// hardRefresh asks for a hard refresh (manifests generated again, no
// cache) the way 'argocd app get --hard-refresh' does, and waits until the
// controller has done it (it removes the annotation).
func hardRefresh(t testing.TB, name string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, v1alpha1.AnnotationKeyRefresh, string(v1alpha1.RefreshTypeHard))
	if _, err := argo.apps.ArgoprojV1alpha1().Applications(argoNS).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("refresh %s: %v", name, err)
	}
	waitApp(t, name, "refreshed", 2*time.Minute, func(a *v1alpha1.Application) bool {
		_, pending := a.Annotations[v1alpha1.AnnotationKeyRefresh]
		return !pending
	})
}

// syncs is the number of sync operations the Application has run
// (status.history: one entry per successful sync).
func syncs(a *v1alpha1.Application) int { return len(a.Status.History) }

// describe renders what Argo CD reports about an Application, for failures.
func describe(a *v1alpha1.Application) string {
	if a == nil {
		return "(not read)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sync: %s at %.12s, health: %s, history: %d sync(s)\n", a.Status.Sync.Status, a.Status.Sync.Revision, a.Status.Health.Status, syncs(a))
	if op := a.Status.OperationState; op != nil {
		fmt.Fprintf(&b, "operation: %s: %s\n", op.Phase, op.Message)
	}
	for _, c := range a.Status.Conditions {
		fmt.Fprintf(&b, "condition %s: %s\n", c.Type, c.Message)
	}
	for _, r := range a.Status.Resources {
		fmt.Fprintf(&b, "  %s/%s %s %s/%s: %s", r.Group, r.Version, r.Kind, r.Namespace, r.Name, r.Status)
		if r.Health != nil {
			fmt.Fprintf(&b, " (%s)", r.Health.Status)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// outOfSyncResources lists "Kind namespace/name" of the resources the
// Application reports OutOfSync.
func outOfSyncResources(a *v1alpha1.Application) []string {
	var out []string
	for _, r := range a.Status.Resources {
		if r.Status == v1alpha1.SyncStatusCodeOutOfSync {
			out = append(out, r.Kind+" "+r.Namespace+"/"+r.Name)
		}
	}
	sort.Strings(out)
	return out
}

// scrape reads the application controller's metrics.
func scrape(t testing.TB) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(argo.metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("controller metrics: %v", err)
	}
	return mf
}

// sum adds the values of a counter or the sums/counts of a histogram over
// the series whose labels include match.
func sum(mf map[string]*dto.MetricFamily, name string, match map[string]string) (value float64, count uint64) {
	f := mf[name]
	if f == nil {
		return 0, 0
	}
series:
	for _, m := range f.Metric {
		for k, v := range match {
			found := false
			for _, l := range m.Label {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			value += m.Counter.GetValue()
		case m.Histogram != nil:
			value += m.Histogram.GetSampleSum()
			count += m.Histogram.GetSampleCount()
		case m.Gauge != nil:
			value += m.Gauge.GetValue()
		}
	}
	return value, count
}
