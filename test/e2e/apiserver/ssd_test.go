package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/gitops-engine/pkg/diff"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

// requestCounts is the API server's own count of the requests it served
// (apiserver_request_total), summed: all of them, and the dry runs.
type requestCounts struct{ all, dryRun, apply float64 }

var labelRE = regexp.MustCompile(`(\w+)="([^"]*)"`)

func (a *argo) requestCounts(t *testing.T) requestCounts {
	t.Helper()
	raw, err := a.core.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("reading /metrics: %v", err)
	}
	var c requestCounts
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		labels := map[string]string{}
		for _, m := range labelRE.FindAllStringSubmatch(line[:i], -1) {
			labels[m[1]] = m[2]
		}
		c.all += v
		if labels["dry_run"] == "All" {
			c.dryRun += v
			if labels["verb"] == "APPLY" || labels["verb"] == "PATCH" {
				c.apply += v
			}
		}
	}
	return c
}

func (c requestCounts) minus(d requestCounts) requestCounts {
	return requestCounts{c.all - d.all, c.dryRun - d.dryRun, c.apply - d.apply}
}

// ssdSizes are the application sizes measured; E2E_SSD_SIZES overrides
// (comma-separated), e.g. 10,100,1000 for the BENCHMARKS.md table.
func ssdSizes(t *testing.T) []int {
	spec := os.Getenv("E2E_SSD_SIZES")
	if spec == "" {
		spec = "10,100"
	}
	var out []int
	for _, s := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			t.Fatalf("E2E_SSD_SIZES=%q: want positive numbers", spec)
		}
		out = append(out, n)
	}
	return out
}

// TestServerSideDiffRequests measures what one refresh of an application
// of N ExternalSecrets costs the API server under Argo CD's Server-Side
// Diff (a dry-run apply per resource), against the structured-merge diff
// of the same objects filled by cmp-defaults, which needs no request: the
// live objects come from Argo CD's watch-fed cluster cache either way.
func TestServerSideDiffRequests(t *testing.T) {
	s := startServer(t)
	// Argo CD's controller defaults: ARGOCD_K8S_CLIENT_QPS=50, BURST=100.
	cfg := rest.CopyConfig(s.cfg)
	cfg.QPS, cfg.Burst = 50, 100
	a := newArgo(t, cfg)
	esFile := filepath.Join("testdata", "external-secrets", "objects.yaml")
	a.installCRDs(t, []*apiextv1.CustomResourceDefinition{crdFromProfile(t, "external-secrets/v2.5.0.yaml", "ExternalSecret", "externalsecrets", esFile)})
	story := readObjects(t, esFile)[0]
	filled := fill(t, []*unstructured.Unstructured{story}, "--operator", "external-secrets@2.5.0")[0]

	type row struct {
		n                   int
		ssd, plain          requestCounts
		ssdTime, plainTime  time.Duration
		ssdSynced, plSynced bool
	}
	var rows []row
	for _, n := range ssdSizes(t) {
		ns := fmt.Sprintf("ssd-%d", n)
		a.ensureNamespace(t, ns)
		var targets, lives []*unstructured.Unstructured
		m := a.mapping(t, filled)
		ri := a.dyn.Resource(m.Resource).Namespace(ns)
		start := time.Now()
		for i := 0; i < n; i++ {
			o := filled.DeepCopy()
			o.SetName(fmt.Sprintf("es-%04d", i))
			o = a.forApp(t, ns, o)
			// The sync, as ServerSideApply=true does it (one apply each).
			live, err := ri.Apply(context.Background(), o.GetName(), o, metav1.ApplyOptions{FieldManager: argoManager, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			targets, lives = append(targets, o), append(lives, live)
		}
		t.Logf("N=%d: synced in %s", n, time.Since(start).Round(time.Millisecond))
		measure := func(m diffMode) (requestCounts, time.Duration, bool) {
			before := a.requestCounts(t)
			start := time.Now()
			res, err := diff.DiffArray(targets, lives, a.diffOptions(m)...)
			took := time.Since(start)
			after := a.requestCounts(t)
			if err != nil {
				t.Fatalf("N=%d %s: %v", n, m.name, err)
			}
			// The count covers every request the server served meanwhile:
			// the diff's, and the server's own background requests (leases).
			return after.minus(before), took, !res.Modified
		}
		// Warm up both modes on one object (GVK parser, kubectl factory),
		// so that the figures are those of a running controller.
		for _, m := range []diffMode{{"server-side-diff(ssa)", serverSideApply, true}, {"structured-merge(ssa)", serverSideApply, false}} {
			if _, err := diff.DiffArray(targets[:1], lives[:1], a.diffOptions(m)...); err != nil {
				t.Fatal(err)
			}
		}
		r := row{n: n}
		r.ssd, r.ssdTime, r.ssdSynced = measure(diffMode{"server-side-diff(ssa)", serverSideApply, true})
		r.plain, r.plainTime, r.plSynced = measure(diffMode{"structured-merge(ssa)", serverSideApply, false})
		rows = append(rows, r)
		if !r.ssdSynced || !r.plSynced {
			t.Errorf("N=%d: Synced with Server-Side Diff %v, with the structured-merge diff of filled objects %v; want both", n, r.ssdSynced, r.plSynced)
		}
		if r.ssd.apply < float64(n) {
			t.Errorf("N=%d: Server-Side Diff made %v dry-run applies, want at least one per resource", n, r.ssd.apply)
		}
		if r.plain.dryRun != 0 {
			t.Errorf("N=%d: the diff of filled objects made %v dry-run requests, want 0", n, r.plain.dryRun)
		}
	}
	var b strings.Builder
	fmt.Fprintln(&b, "| objects | Server-Side Diff: dry-run requests | all requests served meanwhile | time | filled manifests, structured-merge diff: dry-run requests | all requests served meanwhile | time | time ratio |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %.0f | %.0f | %s | %.0f | %.0f | %s | %.1f× |\n", r.n, r.ssd.dryRun, r.ssd.all, r.ssdTime.Round(time.Millisecond), r.plain.dryRun, r.plain.all, r.plainTime.Round(100*time.Microsecond), float64(r.ssdTime)/float64(r.plainTime))
	}
	t.Logf("one refresh, ExternalSecrets filled with external-secrets@2.5.0, client QPS 50 / burst 100:\n%s", b.String())
}
