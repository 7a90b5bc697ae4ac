package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/tracing"
	"github.com/argoproj/gitops-engine/pkg/diff"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"sigs.k8s.io/yaml"
)

// Argo CD's names for the pieces it sets (argo-cd common package).
const (
	argoManager     = "argocd-controller" // common.ArgoCDSSAManager, the field manager of every sync
	trackingIDKey   = "argocd.argoproj.io/tracking-id"
	lastAppliedAnno = corev1.LastAppliedConfigAnnotation
)

// Sync strategies of an Application.
type syncMode string

const (
	clientSideApply syncMode = "csa" // default: kubectl apply (client-side)
	serverSideApply syncMode = "ssa" // syncOptions: [ServerSideApply=true]
)

// Diff modes Argo CD uses to compare an application.
type diffMode struct {
	name string
	sync syncMode // how the application is synced
	ssd  bool     // compare-options ServerSideDiff=true
}

// The modes: legacy three-way diff of a client-side-applied app, the
// structured-merge diff that ServerSideApply=true turns on, and Server-Side
// Diff (a dry-run apply per resource) with either sync strategy.
var diffModes = []diffMode{
	{"three-way", clientSideApply, false},
	{"server-side-diff(csa)", clientSideApply, true},
	{"structured-merge(ssa)", serverSideApply, false},
	{"server-side-diff(ssa)", serverSideApply, true},
}

// argo drives a cluster the way Argo CD's application controller does.
type argo struct {
	cfg     *rest.Config
	kubectl *kube.KubectlCmd
	ops     kube.ResourceOperations // in-process kubectl apply (sync)
	dryRun  diff.KubeApplier        // in-process kubectl apply --dry-run=server (server-side diff)
	parser  *managedfields.GvkParser
	dyn     dynamic.Interface
	core    kubernetes.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
	cleanup []func()

	round int // installCRDs calls
}

func newArgo(t *testing.T, cfg *rest.Config) *argo {
	t.Helper()
	a := &argo{cfg: cfg, kubectl: &kube.KubectlCmd{Log: logr.Discard(), Tracer: tracing.NopTracer{}}}
	var err error
	if a.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if a.core, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	t.Cleanup(a.close)
	return a
}

func (a *argo) close() {
	for _, f := range a.cleanup {
		f()
	}
	a.cleanup = nil
}

// refresh reloads what Argo CD's cluster cache holds: the OpenAPI schema
// (for the GVK parser of structured-merge and server-side diffs) and a new
// kubectl factory, after CRDs changed.
func (a *argo) refresh(t *testing.T) {
	t.Helper()
	a.close()
	a.mapper.Reset()
	_, parser, err := a.kubectl.LoadOpenAPISchema(a.cfg)
	if err != nil {
		t.Fatalf("loading OpenAPI schema: %v", err)
	}
	a.parser = parser
	ops, cleanup, err := a.kubectl.ManageResources(a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.ops = ops
	a.cleanup = append(a.cleanup, cleanup)
	dr, cleanup2, err := a.kubectl.ManageServerSideDiffDryRuns(a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.dryRun = dr
	a.cleanup = append(a.cleanup, cleanup2)
}

// waitOpenAPI waits until the published OpenAPI v2 schema has every kind
// in want, with the description marker installCRDs set where want says the
// schema is published (a root that preserves unknown fields is published
// as a bare object, without its description).
func (a *argo) waitOpenAPI(t *testing.T, want map[schema.GroupVersionKind]bool, marker string) {
	t.Helper()
	disco, err := discovery.NewDiscoveryClientForConfig(a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var missing []schema.GroupVersionKind
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		doc, err := disco.OpenAPISchema()
		if err != nil {
			return false, nil
		}
		seen := map[schema.GroupVersionKind]bool{}
		for _, def := range doc.GetDefinitions().GetAdditionalProperties() {
			s := def.GetValue()
			for _, ext := range s.GetVendorExtension() {
				if ext.GetName() != "x-kubernetes-group-version-kind" {
					continue
				}
				var list []map[string]string
				if err := yaml.Unmarshal([]byte(ext.GetValue().GetYaml()), &list); err != nil {
					continue
				}
				for _, m := range list {
					g := schema.GroupVersionKind{Group: m["group"], Version: m["version"], Kind: m["kind"]}
					if s.GetDescription() == marker || !want[g] {
						seen[g] = true
					}
				}
			}
		}
		missing = missing[:0]
		for g := range want {
			if !seen[g] {
				missing = append(missing, g)
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		t.Fatalf("OpenAPI schema: %v not published with %q: %v", missing, marker, err)
	}
}

func (a *argo) ensureNamespace(t *testing.T, ns string) {
	t.Helper()
	_, err := a.core.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func (a *argo) mapping(t *testing.T, obj *unstructured.Unstructured) *meta.RESTMapping {
	t.Helper()
	gvk := obj.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatalf("%s: %v", gvk, err)
	}
	return m
}

// forApp places obj into an application: namespaced objects into the app's
// namespace, cluster-scoped ones get the app's name as a suffix. Argo CD's
// tracking annotation is set as Argo CD sets it before it syncs and diffs.
func (a *argo) forApp(t *testing.T, app string, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	obj = obj.DeepCopy()
	if a.mapping(t, obj).Scope.Name() == meta.RESTScopeNameNamespace {
		obj.SetNamespace(app)
	} else {
		obj.SetNamespace("")
		obj.SetName(obj.GetName() + "-" + app)
	}
	gvk := obj.GroupVersionKind()
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[trackingIDKey] = fmt.Sprintf("%s:%s/%s:%s/%s", app, gvk.Group, gvk.Kind, obj.GetNamespace(), obj.GetName())
	obj.SetAnnotations(ann)
	return obj
}

// sync applies obj as Argo CD's sync does: kubectl apply in-process, field
// manager argocd-controller, server-side when mode says so (with
// --force-conflicts, as Argo CD sets it).
func (a *argo) sync(t *testing.T, obj *unstructured.Unstructured, mode syncMode) {
	t.Helper()
	if _, err := a.ops.ApplyResource(context.Background(), obj.DeepCopy(), cmdutil.DryRunNone, false, true, mode == serverSideApply, argoManager); err != nil {
		t.Fatalf("sync (%s) %s %s: %v", mode, obj.GetKind(), obj.GetName(), err)
	}
}

// live reads obj back from the cluster, as Argo CD's cluster cache holds it.
func (a *argo) live(t *testing.T, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	m := a.mapping(t, obj)
	var ri dynamic.ResourceInterface = a.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = a.dyn.Resource(m.Resource).Namespace(obj.GetNamespace())
	}
	live, err := ri.Get(context.Background(), obj.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading back %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	return live
}

// ignoreStatus is the normalizer Argo CD v3 builds by default: the
// ignoreResourceStatusField "all" compare option ignores /status of every
// resource (settings.addStatusOverrideToGK("*/*")). With no
// ignoreDifferences and no known-type overrides that is all
// util/argo/diff.newDiffNormalizer does for custom resources.
type ignoreStatus struct{}

func (ignoreStatus) Normalize(un *unstructured.Unstructured) error {
	unstructured.RemoveNestedField(un.Object, "status")
	return nil
}

// diffOptions builds the options the way util/argo/diff.StateDiffs does from
// the diff config controller/state.go CompareAppState builds: normalizer,
// IgnoreAggregatedRoles (false by default), structured-merge diff when the app
// syncs with ServerSideApply=true, the cluster's GVK parser, manager
// argocd-controller, server-side diff with a dry-run runner, and mutation
// webhook changes ignored (the default unless IncludeMutationWebhook=true).
func (a *argo) diffOptions(m diffMode) []diff.Option {
	opts := []diff.Option{
		diff.WithNormalizer(ignoreStatus{}),
		diff.IgnoreAggregatedRoles(false),
		diff.WithStructuredMergeDiff(m.sync == serverSideApply),
		diff.WithGVKParser(a.parser),
		diff.WithManager(argoManager),
		diff.WithServerSideDiff(m.ssd),
		diff.WithIgnoreMutationWebhook(true),
		diff.WithLogr(logr.Discard()),
	}
	if m.ssd {
		opts = append(opts, diff.WithServerSideDryRunner(diff.NewK8sServerSideDryRunner(a.dryRun)))
	}
	return opts
}

// compare is Argo CD's verdict for one resource in one mode.
type compare struct {
	modified bool
	changes  []change // what differs from normalized live to predicted live
	err      string   // the diff failed: Argo CD reports a ComparisonError
}

func (c compare) synced() bool { return !c.modified && c.err == "" }

func (c compare) String() string {
	if c.err != "" {
		return "ComparisonError: " + c.err
	}
	if !c.modified {
		return "Synced"
	}
	var s []string
	for _, ch := range c.changes {
		s = append(s, ch.String())
	}
	return "OutOfSync " + strings.Join(s, ", ")
}

func (a *argo) diff(t *testing.T, target, live *unstructured.Unstructured, m diffMode) compare {
	t.Helper()
	res, err := diff.DiffArray([]*unstructured.Unstructured{target.DeepCopy()}, []*unstructured.Unstructured{live.DeepCopy()}, a.diffOptions(m)...)
	if err != nil {
		return compare{err: err.Error()}
	}
	d := res.Diffs[0]
	c := compare{modified: res.Modified}
	if c.modified {
		var pl, nl any
		_ = json.Unmarshal(d.PredictedLive, &pl)
		_ = json.Unmarshal(d.NormalizedLive, &nl)
		treeDiff(nl, pl, "", &c.changes)
	}
	return c
}

// excuseNulls drops the changes at paths where the object sent holds an
// explicit null: kubectl's client-side apply strips nulls before it creates
// an object, so the API server stores the default of a nullable field that
// the manifest sets to null (measured; server-side apply and a plain create
// keep the null). cmp-defaults follows the API server, so a
// client-side-applied app keeps that difference; excused lists it.
func excuseNulls(cs []change, nulls map[string]bool, excused *[]string) []change {
	var keep []change
	for _, c := range cs {
		if nulls[c.path] {
			*excused = append(*excused, c.String())
			continue
		}
		keep = append(keep, c)
	}
	return keep
}

// nullPaths lists where obj holds an explicit null.
func nullPaths(t *testing.T, obj *unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	var walk func(v any, p string)
	walk = func(v any, p string) {
		switch x := v.(type) {
		case nil:
			out[p] = true
		case map[string]any:
			for k, e := range x {
				walk(e, p+"."+k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", p, i))
			}
		}
	}
	walk(content(t, obj), "")
	return out
}

// Field differences, as paths like .spec.data[0].remoteRef.nullBytePolicy.

type change struct {
	path     string
	from, to any // from: absent when added; to: absent when removed
	added    bool
	removed  bool
}

func (c change) String() string {
	switch {
	case c.added:
		return fmt.Sprintf("+%s=%s", c.path, js(c.to))
	case c.removed:
		return fmt.Sprintf("-%s=%s", c.path, js(c.from))
	}
	return fmt.Sprintf("~%s: %s -> %s", c.path, js(c.from), js(c.to))
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// treeDiff lists what changes from x to y, field by field; lists are
// compared item by item when their lengths agree.
func treeDiff(x, y any, path string, out *[]change) {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range xv {
			keys[k] = true
		}
		for k := range yv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := path + "." + k
			a, inX := xv[k]
			b, inY := yv[k]
			switch {
			case !inX:
				*out = append(*out, change{path: p, to: b, added: true})
			case !inY:
				*out = append(*out, change{path: p, from: a, removed: true})
			default:
				treeDiff(a, b, p, out)
			}
		}
		return
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			break
		}
		for i := range xv {
			treeDiff(xv[i], yv[i], fmt.Sprintf("%s[%d]", path, i), out)
		}
		return
	}
	if !reflect.DeepEqual(x, y) {
		*out = append(*out, change{path: path, from: x, to: y})
	}
}

// content is an object without metadata and status, as plain JSON values:
// what "the filled object equals the stored one" compares.
func content(t *testing.T, obj *unstructured.Unstructured) map[string]any {
	t.Helper()
	m := map[string]any{}
	for k, v := range obj.Object {
		if k != "metadata" && k != "status" {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// metadataDiff lists the labels and annotations got has and want lacks or
// has otherwise, but the annotation kubectl's client-side apply writes.
func metadataDiff(want, got *unstructured.Unstructured) []change {
	var cs []change
	for _, m := range []struct {
		field     string
		want, got map[string]string
	}{{"labels", want.GetLabels(), got.GetLabels()}, {"annotations", want.GetAnnotations(), got.GetAnnotations()}} {
		for k, v := range m.got {
			p := `.metadata.` + m.field + `["` + k + `"]`
			switch wv, ok := m.want[k]; {
			case k == corev1.LastAppliedConfigAnnotation:
			case !ok:
				cs = append(cs, change{path: p, to: v, added: true})
			case wv != v:
				cs = append(cs, change{path: p, from: wv, to: v})
			}
		}
	}
	return cs
}

// contentDiff lists the changes from want to got, metadata and status aside.
func contentDiff(t *testing.T, want, got *unstructured.Unstructured) []change {
	t.Helper()
	var cs []change
	treeDiff(content(t, want), content(t, got), "", &cs)
	return cs
}
