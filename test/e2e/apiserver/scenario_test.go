package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"
)

// ---- reading manifests and CRDs ----

// decodeObjects reads a YAML or JSON stream of objects.
func decodeObjects(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	out, err := parseObjects(data)
	if err != nil {
		t.Fatalf("decoding manifests: %v", err)
	}
	return out
}

func readObjects(t *testing.T, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decodeObjects(t, data)...)
	}
	return out
}

// readCRDs reads every CustomResourceDefinition in files.
func readCRDs(t *testing.T, files ...string) []*apiextv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextv1.CustomResourceDefinition
	for _, o := range readObjects(t, files...) {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, crd); err != nil {
			t.Fatalf("CRD %s: %v", o.GetName(), err)
		}
		out = append(out, crd)
	}
	return out
}

// releaseCRDs returns the CRD files of an operator release from
// ../shared/crds: every release folder at or below the release, overlaid in
// version order by file name (a partial folder holds only the CRD files that
// changed at that tag).
func releaseCRDs(t *testing.T, operator, release string) []string {
	t.Helper()
	root := filepath.Join(sharedCRDs(), operator)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var folders []string
	for _, e := range entries {
		if e.IsDir() && compareVersions(e.Name(), release) <= 0 {
			folders = append(folders, e.Name())
		}
	}
	sort.Slice(folders, func(i, j int) bool { return compareVersions(folders[i], folders[j]) < 0 })
	if len(folders) == 0 {
		t.Fatalf("no CRDs of %s at or below %s in %s", operator, release, root)
	}
	byName := map[string]string{}
	for _, f := range folders {
		files, _ := filepath.Glob(filepath.Join(root, f, "*.yaml"))
		for _, p := range files {
			byName[filepath.Base(p)] = p
		}
	}
	var out []string
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

var versionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)$`)

func compareVersions(a, b string) int {
	pa, pb := versionRE.FindStringSubmatch(a), versionRE.FindStringSubmatch(b)
	if pa == nil || pb == nil {
		return strings.Compare(a, b)
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ---- installing CRDs ----

// installCRDs installs crds, replacing the spec of CRDs of the same name in
// place, and waits until they are established and their schemas are
// published in the OpenAPI schema (Argo CD's GVK parser reads it). CRDs are
// never deleted: deleting a CRD waits for its instances to be cleaned up,
// which can take minutes; each scenario syncs into its own namespaces
// instead.
func (a *argo) installCRDs(t *testing.T, crds []*apiextv1.CustomResourceDefinition) {
	t.Helper()
	start := time.Now()
	cs, err := apiextclient.NewForConfig(a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a.round++
	marker := fmt.Sprintf("cmp-defaults e2e install %d", a.round)
	for _, crd := range crds {
		// Name and spec only: upstream files carry labels that are
		// Helm-templated (cert-manager) and are no part of the schema. The
		// schema's top-level description becomes a marker to recognise
		// this install in the published OpenAPI schema; descriptions play
		// no part in defaulting, pruning or merging.
		spec := crd.Spec.DeepCopy()
		for i := range spec.Versions {
			if sc := spec.Versions[i].Schema; sc != nil && sc.OpenAPIV3Schema != nil {
				sc.OpenAPIV3Schema.Description = marker
			}
		}
		want := &apiextv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crd.Name}, Spec: *spec}
		if v, ok := crd.Annotations[apiApproved]; ok {
			want.Annotations = map[string]string{apiApproved: v}
		}
		err := retryOnConflict(func() error {
			old, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				_, err = cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, want, metav1.CreateOptions{})
				return err
			}
			if err != nil {
				return err
			}
			old.Spec = want.Spec
			if v, ok := want.Annotations[apiApproved]; ok {
				if old.Annotations == nil {
					old.Annotations = map[string]string{}
				}
				old.Annotations[apiApproved] = v
			}
			_, err = cs.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, old, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("installing CRD %s: %v", crd.Name, err)
		}
	}
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("CRD %s not established: %v", crd.Name, err)
		}
	}
	a.waitOpenAPI(t, servedKinds(crds), marker)
	a.refresh(t)
	t.Logf("installed %d CRD(s) in %s", len(crds), time.Since(start).Round(time.Millisecond))
}

func retryOnConflict(f func() error) error {
	var err error
	for i := 0; i < 10; i++ {
		if err = f(); !apierrors.IsConflict(err) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// servedKinds is every served kind of crds, and whether the OpenAPI v2
// schema publishes its schema (installCRDs's marker): a root that preserves
// unknown fields (Knative's networking CRDs of 1.5 and older) is published as a
// bare object.
func servedKinds(crds []*apiextv1.CustomResourceDefinition) map[schema.GroupVersionKind]bool {
	out := map[schema.GroupVersionKind]bool{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				bare := v.Schema == nil || v.Schema.OpenAPIV3Schema == nil || v.Schema.OpenAPIV3Schema.XPreserveUnknownFields != nil && *v.Schema.OpenAPIV3Schema.XPreserveUnknownFields
				out[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = !bare
			}
		}
	}
	return out
}

// inAtomicList says whether path (.spec.a[0].b) goes through a list item of
// a list that structured-merge compares whole: no x-kubernetes-list-type, or
// atomic.
func inAtomicList(crds []*apiextv1.CustomResourceDefinition, gvk schema.GroupVersionKind, path string) bool {
	var s *apiextv1.JSONSchemaProps
	for _, crd := range crds {
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gvk.Version && v.Schema != nil {
				s = v.Schema.OpenAPIV3Schema
			}
		}
	}
	for _, seg := range pathSegments(path) {
		if s == nil {
			return false
		}
		if seg.index {
			if s.XListType == nil || *s.XListType == "atomic" {
				return true
			}
			if s.Items == nil {
				return false
			}
			s = s.Items.Schema
			continue
		}
		if p, ok := s.Properties[seg.key]; ok {
			s = &p
		} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			s = s.AdditionalProperties.Schema
		} else {
			return false
		}
	}
	return false
}

type segment struct {
	key   string
	index bool
}

func pathSegments(p string) []segment {
	var out []segment
	for _, part := range strings.Split(strings.TrimPrefix(p, "."), ".") {
		for {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				break
			}
			if i > 0 {
				out = append(out, segment{key: part[:i]})
			}
			j := strings.IndexByte(part, ']')
			out = append(out, segment{index: true})
			part = part[j+1:]
		}
		if part != "" {
			out = append(out, segment{key: part})
		}
	}
	return out
}

// ---- the cmp-defaults binary ----

type cmdResult struct {
	stdout, stderr string
	code           int
}

func runBinary(t *testing.T, stdin string, args ...string) cmdResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "CMP_DEFAULTS_PROFILES_DIR=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running cmp-defaults: %v", err)
	}
	return cmdResult{out.String(), errb.String(), code}
}

// fill runs 'cmp-defaults fill' on objs.
func fill(t *testing.T, objs []*unstructured.Unstructured, args ...string) []*unstructured.Unstructured {
	t.Helper()
	out, _ := fillWarned(t, objs, args...)
	return out
}

// fillWarned is fill, and per object the paths fill warned about: values
// written that the operator's admission stores as others (rewrites).
func fillWarned(t *testing.T, objs []*unstructured.Unstructured, args ...string) ([]*unstructured.Unstructured, [][]string) {
	t.Helper()
	var in bytes.Buffer
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		in.WriteString("---\n")
		in.Write(b)
	}
	r := runBinary(t, in.String(), append(append([]string{"fill"}, args...), "-")...)
	if r.code != 0 {
		t.Fatalf("cmp-defaults fill %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	out := decodeObjects(t, []byte(r.stdout))
	if len(out) != len(objs) {
		t.Fatalf("fill: %d objects in, %d out", len(objs), len(out))
	}
	// What Argo CD gets from the plugin is generate's JSON stream: it must
	// be these very objects, and it is what the scenarios sync.
	gen := generated(t, in.String(), args...)
	if len(gen) != len(out) {
		t.Fatalf("generate: %d objects, fill: %d", len(gen), len(out))
	}
	for i := range out {
		if !reflect.DeepEqual(gen[i].Object, out[i].Object) {
			y, _ := yaml.Marshal(gen[i].Object)
			t.Fatalf("generate's JSON stream decodes to another object than fill's YAML:\n%s\nfill:\n%s", y, r.stdout)
		}
	}
	warned := make([][]string, len(objs))
	for i, o := range objs {
		id := ": " + o.GetAPIVersion() + " " + o.GetKind() + " " + o.GetName() + ": "
		for _, line := range strings.Split(r.stderr, "\n") {
			at := strings.Index(line, id)
			end := strings.Index(line, ": you wrote ")
			if at >= 0 && end > at+len(id) {
				warned[i] = append(warned[i], line[at+len(id):end])
			}
		}
	}
	return gen, warned
}

// generated runs 'cmp-defaults generate' on a plain directory holding
// manifests, as argocd-cmp-server runs it (the Application's name,
// namespace and path in its environment), with the operator releases and
// profile directories of fill's args in the sidecar's env, and decodes its
// stdout the way Argo CD reads a plugin's output.
func generated(t *testing.T, manifests string, fillArgs ...string) []*unstructured.Unstructured {
	t.Helper()
	var ops, dirs []string
	for i := 0; i+1 < len(fillArgs); i += 2 {
		switch fillArgs[i] {
		case "--operator":
			ops = append(ops, fillArgs[i+1])
		case "--profiles-dir":
			d, err := filepath.Abs(fillArgs[i+1])
			if err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, d)
		default:
			t.Fatalf("generated: no plugin setting for %s", fillArgs[i])
		}
	}
	repo := t.TempDir()
	app := filepath.Join(repo, "app")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "objects.yaml"), []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "generate")
	cmd.Dir = app
	cmd.Env = append(os.Environ(), "ARGOCD_APP_NAME=e2e", "ARGOCD_APP_NAMESPACE=default", "ARGOCD_APP_SOURCE_PATH=app",
		"CMP_DEFAULTS_OPERATORS="+strings.Join(ops, ","), "CMP_DEFAULTS_PROFILES_DIR="+strings.Join(dirs, string(os.PathListSeparator)))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cmp-defaults generate (%s): %v: %s", strings.Join(ops, ","), err, errb.String())
	}
	if !bytes.HasPrefix(out.Bytes(), []byte("{")) {
		t.Fatalf("generate's output is not a JSON stream:\n%s", out.String())
	}
	return decodeObjects(t, out.Bytes())
}

// ---- one scenario: sync without and with cmp-defaults, diff in every mode ----

type scenario struct {
	id       string // short, DNS-label safe: names the apps and namespaces
	crds     []*apiextv1.CustomResourceDefinition
	objects  []*unstructured.Unstructured // as in Git
	fillArgs []string                     // --operator ... [--profiles-dir ...]
	// metadata: the filled objects' labels and annotations are compared
	// with the stored ones too (an operator's webhook writes them); the
	// content comparison leaves metadata out.
	metadata bool
}

// objectResult is what one object went through.
type objectResult struct {
	id        string // Kind/name
	gvk       schema.GroupVersionKind
	raw       map[string]compare // Argo CD's verdict per diff mode, without cmp-defaults
	filled    map[string]compare // ... with cmp-defaults
	added     []change           // what the API server changed in the object as written (raw -> stored, server-side apply)
	listItem  bool               // some change lies in an item of an atomic list
	nullFill  bool               // some change replaces an explicit null with a default
	vsRaw     []change           // filled -> stored without cmp-defaults (must be none)
	vsFilled  []change           // filled -> stored with cmp-defaults (must be none)
	excused   []string           // differences of kubectl's client-side apply at explicit nulls
	filledObj *unstructured.Unstructured
	warned    []string // paths fill warned about (a value written that admission rewrites)
}

// run syncs the objects as written into two apps (client-side and
// server-side apply), then the filled objects into two more, and compares
// each with Argo CD's diff in the modes that go with the app's sync.
func (a *argo) run(t *testing.T, sc scenario) []*objectResult {
	t.Helper()
	start := time.Now()
	filled, warned := fillWarned(t, sc.objects, sc.fillArgs...)
	results := make([]*objectResult, len(sc.objects))
	for i, o := range sc.objects {
		results[i] = &objectResult{id: o.GetKind() + "/" + o.GetName(), gvk: o.GroupVersionKind(), raw: map[string]compare{}, filled: map[string]compare{}, filledObj: filled[i], warned: warned[i]}
	}
	for _, variant := range []string{"raw", "fill"} {
		objs := sc.objects
		if variant == "fill" {
			objs = filled
		}
		for _, sm := range []syncMode{serverSideApply, clientSideApply} {
			app := fmt.Sprintf("%s-%s-%s", sc.id, variant, sm)
			a.ensureNamespace(t, app)
			for i, o := range objs {
				r := results[i]
				target := a.forApp(t, app, o)
				nulls := nullPaths(t, target)
				// What Argo CD's sync stores, compared with what was sent;
				// kubectl's client-side apply drops explicit nulls first.
				excuse := func(cs []change) []change {
					if sm == clientSideApply {
						return excuseNulls(cs, nulls, &r.excused)
					}
					return cs
				}
				a.sync(t, target, sm)
				live := a.live(t, target)
				for _, m := range diffModes {
					if m.sync != sm {
						continue
					}
					c := a.diff(t, target, live, m)
					c.changes = excuse(c.changes)
					c.modified = c.modified && len(c.changes) > 0
					if variant == "raw" {
						r.raw[m.name] = c
					} else {
						r.filled[m.name] = c
					}
				}
				if variant == "raw" && sm == serverSideApply {
					r.added = contentDiff(t, target, live)
					for _, c := range r.added {
						if inAtomicList(sc.crds, r.gvk, c.path) {
							r.listItem = true
						}
						if !c.added && !c.removed && c.from == nil {
							r.nullFill = true
						}
					}
				}
				if variant == "raw" {
					r.vsRaw = append(r.vsRaw, excuse(contentDiff(t, filled[i], live))...)
				} else {
					r.vsFilled = append(r.vsFilled, excuse(contentDiff(t, target, live))...)
					if sc.metadata {
						r.vsFilled = append(r.vsFilled, metadataDiff(target, live)...)
					}
				}
			}
		}
	}
	t.Logf("%s: %d object(s) synced 4 times and compared in %d modes in %s", sc.id, len(sc.objects), len(diffModes), time.Since(start).Round(time.Millisecond))
	return results
}

// problems lists where a scenario's results break the promise. Without
// cmp-defaults, only the structured-merge diff of a server-side-applied app
// is OutOfSync, exactly when the server adds a default inside an item of an
// atomic list or replaces an explicit null with a default; every other mode
// is Synced. With cmp-defaults every mode is Synced and the filled object
// equals what the server stores, both for the object as written and for the
// filled object (metadata and status aside).
func problems(results []*objectResult) []string {
	var out []string
	for _, r := range results {
		for _, m := range diffModes {
			c := r.raw[m.name]
			// A ComparisonError counts as not Synced: structured-merge
			// cannot even type an associative list item whose key field
			// only the server's default fills (Argo CD's OpenAPI v2 schema
			// carries no defaults).
			wantOut := m.name == "structured-merge(ssa)" && (r.listItem || r.nullFill)
			if c.synced() == wantOut {
				out = append(out, fmt.Sprintf("%s: without cmp-defaults, %s: got %s, want OutOfSync=%v (server added: %v)", r.id, m.name, c, wantOut, r.added))
			}
			if f := r.filled[m.name]; !f.synced() {
				out = append(out, fmt.Sprintf("%s: with cmp-defaults, %s: %s", r.id, m.name, f))
			}
		}
		if len(r.vsRaw) > 0 {
			out = append(out, fmt.Sprintf("%s: filled object differs from what the server stores for the object as written: %v", r.id, uniq(r.vsRaw)))
		}
		if len(r.vsFilled) > 0 {
			out = append(out, fmt.Sprintf("%s: filled object differs from what the server stores for it: %v", r.id, uniq(r.vsFilled)))
		}
	}
	return out
}

// uniq lists changes once (both sync strategies usually agree).
func uniq(cs []change) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		if s := c.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func report(t *testing.T, results []*objectResult) {
	t.Helper()
	for _, r := range results {
		var modes []string
		for _, m := range diffModes {
			modes = append(modes, fmt.Sprintf("%s=%s/%s", m.name, short(r.raw[m.name]), short(r.filled[m.name])))
		}
		t.Logf("%-40s server added %d field(s), list item: %-5v  %s", r.id, len(r.added), r.listItem, strings.Join(modes, " "))
	}
}

func short(c compare) string {
	switch {
	case c.err != "":
		return "ComparisonError"
	case c.modified:
		return "OutOfSync"
	}
	return "Synced"
}

func requireNoProblems(t *testing.T, results []*objectResult) {
	t.Helper()
	report(t, results)
	for _, p := range problems(results) {
		t.Error(p)
	}
}
