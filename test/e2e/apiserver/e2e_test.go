package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestAPIServer runs every scenario against one API server: CRDs are
// replaced between scenarios, each scenario syncs into its own namespaces.
func TestAPIServer(t *testing.T) {
	s := startServer(t)
	a := newArgo(t, s.cfg)

	t.Run("widgets", func(t *testing.T) { testWidgets(t, a) })
	t.Run("read-defaults", func(t *testing.T) { testReadDefaults(t, a) })
	t.Run("releases", func(t *testing.T) { testReleases(t, a) })
	t.Run("operators", func(t *testing.T) { testOperators(t, s, a) })
	t.Run("corrupted-profile", func(t *testing.T) { testCorruptedProfile(t, a) })
	t.Run("cli", func(t *testing.T) { testCLI(t, s, a) })
}

func byID(t *testing.T, results []*objectResult, id string) *objectResult {
	t.Helper()
	for _, r := range results {
		if r.id == id {
			return r
		}
	}
	t.Fatalf("no result for %s", id)
	return nil
}

func addedPaths(r *objectResult) []string {
	var out []string
	for _, c := range r.added {
		out = append(out, c.String())
	}
	return out
}

// extractProfile writes a profile from CRD files with the binary and returns
// the --profiles-dir that holds it.
func extractProfile(t *testing.T, operator, version string, crdFiles ...string) string {
	t.Helper()
	dir := t.TempDir()
	r := runBinary(t, "", append([]string{"profiles", "extract", "--operator", operator, "--version", version, "--write", dir}, crdFiles...)...)
	if r.code != 0 {
		t.Fatalf("profiles extract: exit %d: %s", r.code, r.stderr)
	}
	return dir
}

// testWidgets: the suite's own CRD, one default of every shape; the profile
// comes from 'cmp-defaults profiles extract' of the same CRD.
func testWidgets(t *testing.T, a *argo) {
	crdFile := filepath.Join("testdata", "widgets", "crd.yaml")
	crds := readCRDs(t, crdFile)
	a.installCRDs(t, crds)
	profiles := extractProfile(t, "widgets", "1.0.0", crdFile)
	results := a.run(t, scenario{
		id:       "widgets",
		crds:     crds,
		objects:  readObjects(t, filepath.Join("testdata", "widgets", "widgets.yaml")),
		fillArgs: []string{"--operator", "widgets@1.0.0", "--profiles-dir", profiles},
	})
	requireNoProblems(t, results)

	// What the server did, shape by shape.
	want := map[string]struct {
		added    []string
		listItem bool
	}{
		"Widget/top":    {[]string{`+.spec.mode="Fast"`, `+.spec.note="none"`, `+.spec.replicas=1`, `+.spec.target={"deletionPolicy":"Retain"}`, `+.spec.tier="gold"`}, false},
		"Widget/items":  {[]string{`+.spec.items[0].limits={"cpu":"100m"}`, `+.spec.items[0].policy="Ignore"`, `+.spec.note="none"`, `+.spec.replicas=1`, `+.spec.target={"deletionPolicy":"Retain"}`, `+.spec.tier="gold"`}, true},
		"Widget/ports":  {[]string{`+.spec.mode="Fast"`, `+.spec.note="none"`, `+.spec.ports[0].protocol="TCP"`, `+.spec.replicas=1`, `+.spec.target={"deletionPolicy":"Retain"}`, `+.spec.tier="gold"`}, false},
		"Widget/routes": {[]string{`+.spec.mode="Fast"`, `+.spec.note="none"`, `+.spec.replicas=1`, `+.spec.routes.blue.weight=100`, `+.spec.target={"deletionPolicy":"Retain"}`, `+.spec.tier="gold"`}, false},
		"Widget/nested": {[]string{`+.spec.mode="Fast"`, `+.spec.note="none"`, `+.spec.replicas=1`, `+.spec.target.deletionPolicy="Retain"`, `+.spec.target.template.engine="v2"`, `+.spec.tier="gold"`}, false},
		// The nullable null stays; the other null takes the default, which
		// structured-merge shows as drift without cmp-defaults.
		"Widget/nulls":    {[]string{`+.spec.mode="Fast"`, `+.spec.replicas=1`, `+.spec.target={"deletionPolicy":"Retain"}`, `~.spec.tier: null -> "gold"`}, false},
		"Widget/complete": {nil, false},
	}
	for id, w := range want {
		r := byID(t, results, id)
		if got := strings.Join(addedPaths(r), " "); got != strings.Join(w.added, " ") {
			t.Errorf("%s: server changed\n  %s\nwant\n  %s", id, got, strings.Join(w.added, " "))
		}
		if r.listItem != w.listItem {
			t.Errorf("%s: list item default = %v, want %v", id, r.listItem, w.listItem)
		}
	}
	// The nullable field keeps its null through fill and the server.
	nulls := byID(t, results, "Widget/nulls")
	if v, ok, _ := unstructured.NestedFieldNoCopy(nulls.filledObj.Object, "spec", "note"); !ok || v != nil {
		t.Errorf("Widget/nulls: filled .spec.note = %v (present %v), want null", v, ok)
	}
	if !nulls.nullFill || nulls.raw["structured-merge(ssa)"].String() != `OutOfSync ~.spec.tier: "gold" -> null` {
		t.Errorf("Widget/nulls: structured-merge without cmp-defaults: %s", nulls.raw["structured-merge(ssa)"])
	}
	// kubectl's client-side apply strips explicit nulls before it creates an
	// object, so a client-side-applied app stores the nullable field's
	// default: Server-Side Diff then shows .spec.note "none" -> null, with
	// or without cmp-defaults (which follows the API server). Pinned here so
	// that a change of that behaviour shows up.
	if got := strings.Join(nulls.excused, " "); !strings.Contains(got, `~.spec.note: "none" -> null`) || !strings.Contains(got, `~.spec.note: null -> "none"`) {
		t.Errorf("Widget/nulls: kubectl client-side apply no longer drops the explicit null: excused %q", got)
	}
	for _, r := range results {
		if r.id != "Widget/nulls" && len(r.excused) > 0 {
			t.Errorf("%s: excused %v", r.id, r.excused)
		}
	}
}

// testReadDefaults: a CRD whose served version v2 is stored as v1. The
// server adds v1's defaults when it reads a v2 object back; the profile that
// 'profiles extract' makes of the CRD must fill exactly those.
func testReadDefaults(t *testing.T, a *argo) {
	crdFile := filepath.Join("testdata", "gadgets", "crd.yaml")
	crds := readCRDs(t, crdFile)
	a.installCRDs(t, crds)
	profiles := extractProfile(t, "gadgets", "1.0.0", crdFile)
	results := a.run(t, scenario{
		id:       "gadgets",
		crds:     crds,
		objects:  readObjects(t, filepath.Join("testdata", "gadgets", "gadgets.yaml")),
		fillArgs: []string{"--operator", "gadgets@1.0.0", "--profiles-dir", profiles},
	})
	requireNoProblems(t, results)
	want := map[string]string{
		"Gadget/bare": `+.spec.deletePolicy="Background" +.spec.items[0].policy="Ignore" +.spec.mode="Auto" +.spec.target={"policy":"Retain"}`,
		"Gadget/set":  "",
	}
	for id, w := range want {
		if got := strings.Join(addedPaths(byID(t, results, id)), " "); got != w {
			t.Errorf("%s: server changed\n  %s\nwant\n  %s", id, got, w)
		}
	}
}

// release is one operator release whose real CRDs are checked.
type release struct {
	operator, version string
	objects           string // testdata file
	// storyDrift: the ExternalSecret of the README's story drifts under ServerSideApply=true
	// without cmp-defaults (ESO v2.3.0-v2.6.x only).
	storyDrift bool
}

var releases = []release{
	{"external-secrets", "2.2.0", "external-secrets/objects.yaml", false},
	{"external-secrets", "2.5.0", "external-secrets/objects.yaml", true},
	{"external-secrets", "2.7.0", "external-secrets/objects.yaml", false},
	{"external-secrets", "2.9.0", "external-secrets/objects.yaml", false},
	{"cert-manager", "1.19.0", "cert-manager/objects.yaml", false},
	{"cert-manager", "1.19.1", "cert-manager/objects.yaml", false},
}

func requireShared(t *testing.T) {
	t.Helper()
	if sharedCRDs() == "" {
		t.Skipf("skipped: the upstream CRDs are not here (%s does not exist); the suite's own CRDs were still checked", filepath.Join(repoRoot(), "..", "shared", "crds"))
	}
}

func releaseID(r release) string {
	short := map[string]string{"external-secrets": "eso", "cert-manager": "cm"}[r.operator]
	return short + "-" + strings.ReplaceAll(r.version, ".", "")
}

// testReleases: real ESO and cert-manager CRDs, shipped profiles.
func testReleases(t *testing.T, a *argo) {
	requireShared(t)
	for _, rel := range releases {
		t.Run(rel.operator+"@"+rel.version, func(t *testing.T) {
			crds := readCRDs(t, releaseCRDs(t, rel.operator, "v"+rel.version)...)
			a.installCRDs(t, crds)
			results := a.run(t, scenario{
				id:       releaseID(rel),
				crds:     crds,
				objects:  readObjects(t, filepath.Join("testdata", rel.objects)),
				fillArgs: []string{"--operator", rel.operator + "@" + rel.version},
			})
			requireNoProblems(t, results)
			if rel.operator == "external-secrets" {
				story := byID(t, results, "ExternalSecret/datadog-api-key")
				if got := story.raw["structured-merge(ssa)"].modified; got != rel.storyDrift {
					t.Errorf("the nullBytePolicy story: OutOfSync under ServerSideApply=true without cmp-defaults = %v, want %v (%s)", got, rel.storyDrift, story.raw["structured-merge(ssa)"])
				}
			}
			if rel.operator == "cert-manager" {
				// imagePullSecrets is keyed by name, which only the CRD
				// default fills: without cmp-defaults Argo CD cannot
				// compare the app at all under ServerSideApply=true.
				ci := byID(t, results, "ClusterIssuer/letsencrypt-ingress")
				if c := ci.raw["structured-merge(ssa)"]; !strings.Contains(c.err, "omits all key fields") {
					t.Errorf("ClusterIssuer without cmp-defaults, structured-merge: %s, want a ComparisonError", c)
				}
			}
		})
	}
}

// testCorruptedProfile: a user profile that overrides external-secrets
// v2.5.0 with a wrong default value, and one that lacks a default, must make
// the suite's checks fail.
func testCorruptedProfile(t *testing.T, a *argo) {
	requireShared(t)
	rel := release{"external-secrets", "2.5.0", "external-secrets/objects.yaml", true}
	crds := readCRDs(t, releaseCRDs(t, rel.operator, "v"+rel.version)...)
	a.installCRDs(t, crds)
	story := readObjects(t, filepath.Join("testdata", rel.objects))[:1]

	shipped := runBinary(t, "", "profiles", "show", "external-secrets@2.5.0")
	if shipped.code != 0 {
		t.Fatalf("profiles show: %s", shipped.stderr)
	}
	const rule = "      - path: .spec.data[].remoteRef.nullBytePolicy\n        type: string\n        value: Ignore\n"
	if !strings.Contains(shipped.stdout, rule) {
		t.Fatalf("shipped profile has no rule %q", rule)
	}
	for _, c := range []struct{ name, replacement, want string }{
		{"wrong-value", strings.Replace(rule, "Ignore", "Fail", 1), `~.spec.data[0].remoteRef.nullBytePolicy: "Fail" -> "Ignore"`},
		{"missing-default", "", `+.spec.data[0].remoteRef.nullBytePolicy="Ignore"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "external-secrets", "v2.5.0.yaml")
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(strings.Replace(shipped.stdout, rule, c.replacement, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			results := a.run(t, scenario{
				id:       "bad-" + c.name,
				crds:     crds,
				objects:  story,
				fillArgs: []string{"--operator", "external-secrets@2.5.0", "--profiles-dir", dir},
			})
			report(t, results)
			ps := problems(results)
			if len(ps) == 0 {
				t.Fatalf("a corrupted profile passed every check")
			}
			joined := strings.Join(ps, "\n")
			if !strings.Contains(joined, c.want) {
				t.Errorf("problems do not name %s:\n%s", c.want, joined)
			}
			t.Logf("detected, as expected:\n%s", joined)
		})
	}
}
