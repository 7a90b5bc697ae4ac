package apiserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestUpgrade: ExternalSecrets filled with external-secrets@2.5.0 are synced
// into a cluster with v2.5.0's CRD; the CRD is upgraded to v2.7.0 (the
// nullBytePolicy default is gone, valuesDecodingStrategy gets one); the
// application switches to external-secrets@2.7.0 and syncs once. Every diff
// mode is Synced afterwards, and 'diff-releases' named exactly the fields
// that changed. The CRDs are built from the shipped profiles (the v2.7.0 one
// still declares nullBytePolicy, without a default, as upstream does).
func TestUpgrade(t *testing.T) {
	s := startServer(t)
	a := newArgo(t, s.cfg)
	esFile := filepath.Join("testdata", "external-secrets", "objects.yaml")
	var source []*unstructured.Unstructured
	for _, o := range readObjects(t, esFile) {
		if o.GetKind() == "ExternalSecret" {
			source = append(source, o)
		}
	}
	srcFile := writeObjects(t, source)
	old := fill(t, source, "--operator", "external-secrets@2.5.0")
	next := fill(t, source, "--operator", "external-secrets@2.7.0")
	oldFile := writeObjects(t, old)

	crd := func(release string, extra ...string) []*apiextv1.CustomResourceDefinition {
		return []*apiextv1.CustomResourceDefinition{crdFromProfile(t, "external-secrets/v"+release+".yaml", "ExternalSecret", "externalsecrets", append([]string{esFile}, extra...)...)}
	}
	a.installCRDs(t, crd("2.5.0"))

	apps := map[syncMode]string{serverSideApply: "upgrade-ssa", clientSideApply: "upgrade-csa"}
	syncAll := func(t *testing.T, objs []*unstructured.Unstructured) {
		for sm, app := range apps {
			a.ensureNamespace(t, app)
			for _, o := range objs {
				a.sync(t, a.forApp(t, app, o), sm)
			}
		}
	}
	// verdicts diffs every object in the modes of its app's sync.
	verdicts := func(t *testing.T, objs []*unstructured.Unstructured) map[string]compare {
		out := map[string]compare{}
		for sm, app := range apps {
			for _, o := range objs {
				target := a.forApp(t, app, o)
				live := a.live(t, target)
				for _, m := range diffModes {
					if m.sync == sm {
						out[o.GetName()+" "+m.name] = a.diff(t, target, live, m)
					}
				}
			}
		}
		return out
	}
	logVerdicts := func(t *testing.T, what string, v map[string]compare) (outOfSync []string) {
		var keys []string
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var lines []string
		for _, k := range keys {
			lines = append(lines, fmt.Sprintf("  %-60s %s", k, v[k]))
			if !v[k].synced() {
				outOfSync = append(outOfSync, k+": "+v[k].String())
			}
		}
		t.Logf("%s:\n%s", what, strings.Join(lines, "\n"))
		return outOfSync
	}

	syncAll(t, old)
	if bad := logVerdicts(t, "v2.5.0 CRD, filled with external-secrets@2.5.0", verdicts(t, old)); len(bad) > 0 {
		t.Errorf("before the upgrade: %v", bad)
	}

	// The operator upgrade replaces the CRD; the application still renders
	// with external-secrets@2.5.0 until it is switched.
	a.installCRDs(t, crd("2.7.0", oldFile))
	between := logVerdicts(t, "v2.7.0 CRD, still filled with external-secrets@2.5.0 (what users see until they switch)", verdicts(t, old))
	for _, b := range between {
		if !strings.Contains(b, "valuesDecodingStrategy") {
			t.Errorf("between the CRD upgrade and the switch, unexpected: %s", b)
		}
	}

	// Switch to external-secrets@2.7.0 and sync once.
	syncAll(t, next)
	if bad := logVerdicts(t, "v2.7.0 CRD, filled with external-secrets@2.7.0, after one sync", verdicts(t, next)); len(bad) > 0 {
		t.Errorf("after the switch and one sync: %v", bad)
	}
	for sm, app := range apps {
		for _, o := range next {
			if cs := contentDiff(t, o, a.live(t, a.forApp(t, app, o))); len(cs) > 0 {
				t.Errorf("%s (%s): the stored object differs from the filled one: %v", o.GetName(), sm, uniq(cs))
			}
		}
	}

	// diff-releases on the same source names exactly what changed between
	// the two fills.
	r := runBinary(t, "", "diff-releases", "external-secrets@2.5.0", "external-secrets@2.7.0", "-o", "json", srcFile)
	if r.code != 3 {
		t.Fatalf("diff-releases: exit %d (want 3): %s", r.code, r.stderr)
	}
	var dr struct {
		Objects []struct {
			Object  string
			Changes []struct{ Change, Path string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &dr); err != nil {
		t.Fatalf("diff-releases -o json: %v", err)
	}
	var named, changed []string
	for _, o := range dr.Objects {
		name := o.Object[strings.LastIndex(o.Object, "/")+1:]
		for _, c := range o.Changes {
			named = append(named, name+" "+c.Path)
		}
	}
	for i := range old {
		var cs []change
		treeDiff(content(t, old[i]), content(t, next[i]), "", &cs)
		for _, c := range cs {
			changed = append(changed, old[i].GetName()+" "+c.path)
		}
	}
	sort.Strings(named)
	sort.Strings(changed)
	if strings.Join(named, "\n") != strings.Join(changed, "\n") {
		t.Errorf("diff-releases names\n  %s\nthe fills differ at\n  %s", strings.Join(named, "\n  "), strings.Join(changed, "\n  "))
	}
	t.Logf("diff-releases external-secrets@2.5.0 external-secrets@2.7.0:\n%s", runBinary(t, "", "diff-releases", "external-secrets@2.5.0", "external-secrets@2.7.0", srcFile).stdout)
}

func writeObjects(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	var docs []string
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	f := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(f, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
