package controller

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// benchObjects is the size of the benchmark's app: that many
// ExternalSecrets (E2E_BENCH_OBJECTS, default 50).
func benchObjects(b *testing.B) int {
	if v := os.Getenv("E2E_BENCH_OBJECTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("E2E_BENCH_OBJECTS=%q: want a positive number", v)
		}
		return n
	}
	return 50
}

var benchApps = map[string]bool{}

// BenchmarkArgoCDControllerRefresh measures one hard refresh (manifests
// generated again, diffed against the live objects) of an app of N
// ExternalSecrets, by the controller's own metrics:
//
//   - reconcile-ms/op: argocd_app_reconcile (the controller's time for the
//     refresh, manifest generation through the repo-server included);
//   - k8s-requests/op: argocd_app_k8s_request_total of the app (requests the
//     controller makes for the app through its cluster client);
//   - dry-runs/op: argocd_kubectl_exec_total (kubectl operations the
//     controller runs; Server-Side Diff runs one dry-run apply per
//     resource through them) and the PATCH requests of Argo CD's clients
//     (argocd_kubectl_request_total, Argo CD's host only).
//
// Four apps with the same objects: with and without the plugin, each under
// the client-side diff (ServerSideDiff=false) and under Server-Side Diff
// (ServerSideApply=true's default in v3.6). Without the plugin the app is
// OutOfSync in the client-side diff (automated sync without selfHeal, so
// it syncs once); the refresh still measures its cost.
//
//	GOTOOLCHAIN=go1.27.3 go test -run '^$' -bench . -benchtime 10x ./...
func BenchmarkArgoCDControllerRefresh(b *testing.B) {
	installOperators(b)
	n := benchObjects(b)
	path := fmt.Sprintf("bench/%d", n)
	if !fileExists(filepath.Join(repo.dir, path, "objects.yaml")) {
		src, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "plain", "externalsecret.yaml"))
		if err != nil {
			b.Fatal(err)
		}
		// The destination namespace is the objects' namespace.
		es := strings.Replace(string(src), "  namespace: datadog\n", "", 1)
		var docs []string
		for i := range n {
			docs = append(docs, strings.Replace(es, "name: datadog-api-key", fmt.Sprintf("name: es-%04d", i), 1))
		}
		repo.commit(b, "benchmark objects", map[string]string{path + "/objects.yaml": strings.Join(docs, "---\n")})
	}
	rev := head(b)
	for _, c := range []struct {
		name    string
		plugin  bool
		compare string
	}{
		{"plugin/client-side-diff", true, "ServerSideDiff=false"},
		{"directory/client-side-diff", false, "ServerSideDiff=false"},
		{"plugin/server-side-diff", true, ""},
		{"directory/server-side-diff", false, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			name := fmt.Sprintf("bench-%d-%s", n, strings.ReplaceAll(c.name, "/", "-"))
			a := app{
				name: name, path: path, namespace: name,
				syncOptions:    []string{"ServerSideApply=true"},
				compareOptions: c.compare,
				automated:      true, noSelfHeal: true,
			}
			if c.plugin {
				a.operators = clusterOperators()
			}
			if !benchApps[name] {
				cluster.ensureNamespace(b, name)
				a.create(b)
				waitApp(b, name, "synced once", syncTimeout, func(app *v1alpha1.Application) bool {
					return syncs(app) == 1 && app.Status.Sync.Revision == rev && app.Operation == nil &&
						app.Status.OperationState != nil && app.Status.OperationState.Phase.Completed()
				})
				hardRefresh(b, name) // settle: the first refresh after the sync
				benchApps[name] = true
			}
			before := scrape(b)
			b.ResetTimer()
			for range b.N {
				hardRefresh(b, name)
			}
			b.StopTimer()
			after := scrape(b)
			ops := float64(b.N)
			delta := func(metric string, match map[string]string) (float64, uint64) {
				v1, c1 := sum(before, metric, match)
				v2, c2 := sum(after, metric, match)
				return v2 - v1, c2 - c1
			}
			secs, count := delta("argocd_app_reconcile", nil)
			if count > 0 {
				b.ReportMetric(secs*1000/float64(count), "reconcile-ms/op")
			}
			b.ReportMetric(float64(count)/ops, "reconciles/op")
			reqs, _ := delta("argocd_app_k8s_request_total", map[string]string{"name": name})
			b.ReportMetric(reqs/ops, "k8s-requests/op")
			runs, _ := delta("argocd_kubectl_exec_total", nil)
			b.ReportMetric(runs/ops, "kubectl-runs/op")
			patches, _ := delta("argocd_kubectl_requests_total", map[string]string{"host": argoHost(), "method": "PATCH"})
			b.ReportMetric(patches/ops, "patch-requests/op")
			got := getApp(b, name)
			b.Logf("%s: %s, %d resources, %d syncs", name, got.Status.Sync.Status, len(got.Status.Resources), syncs(got))
		})
	}
}
