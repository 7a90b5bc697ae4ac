package learn

import (
	"slices"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

func shippedStore(t *testing.T, dirs ...string) *operators.Store {
	t.Helper()
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS, Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestOverrideOf: --as naming a release the profiles know overrides it;
// a release no profile holds for, or another release of it selected, is
// refused with what to do.
func TestOverrideOf(t *testing.T) {
	st := shippedStore(t)
	if r, err := OverrideOf(st, "prod-webhooks", "v2026.12.1", []string{"cloudnative-pg@1.30.0"}); r != nil || err != nil {
		t.Errorf("a name of one's own: %v, %v; want no override", r, err)
	}
	// A profile of mutations only, learned before, is no release: learned
	// again under its name (any version), unless it is selected.
	dir := t.TempDir()
	learned := Profile("prod-webhooks", "v2026.12.1", &Result{Rules: []Rule{{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Path: ".spec.logLevel", Value: "debug"}}},
		operators.Learned{Cluster: "https://c", ServerVersion: "v1.34.2", Objects: 1})
	b, err := Encode(learned, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := operators.WriteProfile(dir, "prod-webhooks", "v2026.12.1", b); err != nil {
		t.Fatal(err)
	}
	withLearned := shippedStore(t, dir)
	for _, v := range []string{"v2026.12.1", "v2026.12.2"} {
		if r, err := OverrideOf(withLearned, "prod-webhooks", v, []string{"cloudnative-pg@1.30.0"}); r != nil || err != nil {
			t.Errorf("learned again as %s: %v, %v; want no override", v, r, err)
		}
	}
	if _, err := OverrideOf(withLearned, "prod-webhooks", "v2026.12.2", []string{"prod-webhooks@2026.12.1"}); err == nil || !strings.Contains(err.Error(), "--as prod-webhooks@2026.12.2 names the selected prod-webhooks@2026.12.1, a profile of mutations only") {
		t.Errorf("selected: %v", err)
	}

	r, err := OverrideOf(st, "cloudnative-pg", "v1.30.0", []string{"cloudnative-pg@1.30.0", "external-secrets@2.5.0"})
	if err != nil || r == nil || r.Ref() != "cloudnative-pg@v1.30.0" || r.Profile.Source != operators.Shipped {
		t.Fatalf("cloudnative-pg@1.30.0: %+v, %v", r, err)
	}
	for _, c := range []struct {
		version string
		refs    []string
		want    string
	}{
		{"v1.31.0", nil, "--as cloudnative-pg@1.31.0 names a release of cloudnative-pg to override, but no profile holds for it (cloudnative-pg@1.31.0 is newer than every checked release"},
		{"v1.30.1", nil, "no profile holds for it (cloudnative-pg@1.30.1 is newer than every checked release (newest: v1.30.0), so no profile is known to hold for it)"},
		{"v1.10.0", nil, "is older than the oldest known release"},
		{"v1.30.0", []string{"cloudnative-pg@1.29.0"}, "--as cloudnative-pg@1.30.0 overrides cloudnative-pg@1.30.0, but --operator selects cloudnative-pg@1.29.0"},
	} {
		if _, err := OverrideOf(st, "cloudnative-pg", c.version, c.refs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v; want %q", c.version, c.refs, err, c.want)
		}
	}
}

// TestOverrideProfile: the profile learned --as a shipped release holds the
// release's CRD schema defaults and the learned mutations in place of its
// own; written into a profiles directory, it is the release in force and
// fills the cluster's values where the shipped profile fills its own.
func TestOverrideProfile(t *testing.T) {
	const image = "registry.example.com/postgresql:17.6-system-trixie"
	base, err := OverrideOf(shippedStore(t), "cloudnative-pg", "v1.30.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Rules: []Rule{
		{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Path: ".spec.imageName", When: ".spec.imageCatalogRef == null", Value: image, Fields: 2, Objects: 2},
		{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Path: ".spec.monitoring", Value: map[string]any{"customQueriesConfigMap": []any{map[string]any{"name": "site-queries", "key": "queries"}}}, Fields: 2, Objects: 2},
	}}
	prov := operators.Learned{Cluster: "https://prod.example.com", Context: "prod", ServerVersion: "v1.34.2", Objects: 2, Overrides: overrides(base)}
	p := OverrideProfile(base, res, prov)

	if want := "cloudnative-pg@1.30.0 (shipped profiles/cloudnative-pg/v1.30.0.yaml)"; p.Learned.Overrides != want {
		t.Errorf("overrides %q, want %q", p.Learned.Overrides, want)
	}
	if p.Operator != "cloudnative-pg" || p.Version != "v1.30.0" || p.Provenance == nil || p.Provenance.Tag != "v1.30.0" {
		t.Errorf("operator %s, version %s, provenance %+v", p.Operator, p.Version, p.Provenance)
	}
	count := func(p *operators.Profile) (defaults, mutations int) {
		for _, r := range p.Resources {
			defaults += len(r.Defaults)
			mutations += len(r.Mutations)
		}
		return
	}
	bd, bm := count(base.Profile)
	od, om := count(p)
	if od != bd || om != 2 || bm <= 2 {
		t.Errorf("override: %d defaults and %d mutations; the release has %d defaults and %d mutations", od, om, bd, bm)
	}
	if got := notRelearned(base, res.Rules); !slices.Contains(got, "postgresql.cnpg.io/v1 Cluster .spec.bootstrap") || slices.Contains(got, "postgresql.cnpg.io/v1 Cluster .spec.imageName") {
		t.Errorf("not relearned: %v", got)
	}

	b, err := Encode(p, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := operators.WriteProfile(dir, p.Operator, p.Version, b); err != nil {
		t.Fatal(err)
	}
	in, err := shippedStore(t, dir).Resolve("cloudnative-pg", "1.30.0", true)
	if err != nil {
		t.Fatal(err)
	}
	if in.Profile.Source == operators.Shipped || in.Profile.Learned == nil || in.Profile.Learned.Overrides != prov.Overrides {
		t.Fatalf("in force: %s %s, learned %+v", in.Profile.Source, in.Profile.File, in.Profile.Learned)
	}
	fill := func(r *operators.Resolution) map[string]any {
		t.Helper()
		e, err := defaults.Compile([]*operators.Resolution{r}, nil)
		if err != nil {
			t.Fatal(err)
		}
		obj := map[string]any{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster", "metadata": map[string]any{"name": "pg"},
			"spec": map[string]any{"instances": int64(1), "storage": map[string]any{"size": "1Gi"}}}
		if err := e.Fill(obj, nil); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	got := fill(in)
	shipped := fill(base)
	spec := got["spec"].(map[string]any)
	if spec["imageName"] != image || shipped["spec"].(map[string]any)["imageName"] == image {
		t.Errorf("imageName: override %v, shipped %v", spec["imageName"], shipped["spec"].(map[string]any)["imageName"])
	}
	if m, _ := spec["monitoring"].(map[string]any); jsonText(m["customQueriesConfigMap"]) != `[{"key":"queries","name":"site-queries"}]` {
		t.Errorf("monitoring: %s", jsonText(spec["monitoring"]))
	}
	// The CRD schema defaults are the release's: what its defaults alone
	// fill, the override fills too.
	crd := fill(&operators.Resolution{Operator: base.Operator, Requested: base.Requested, Profile: base.Profile.WithoutMutations()})
	for k, v := range crd["spec"].(map[string]any) {
		if jsonText(spec[k]) != jsonText(v) {
			t.Errorf(".spec.%s: override fills %s, the release's CRD defaults %s", k, jsonText(spec[k]), jsonText(v))
		}
	}
	if _, ok := crd["spec"].(map[string]any)["logLevel"]; !ok {
		t.Errorf("the release's CRD defaults fill no .spec.logLevel: %s", jsonText(crd))
	}
}
