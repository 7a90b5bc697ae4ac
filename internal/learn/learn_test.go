package learn

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// admit does to a Gadget what the e2e suite's webhook does: retries in
// every rule, timeoutSeconds for HTTP rules, replicas for mode "ha", a
// backend object with nested fields, and the request's UID as an
// annotation. The learning logic is checked against a real webhook in
// test/e2e/apiserver; here the admission is plain data.
func admit(obj map[string]any, uid string) map[string]any {
	o := runtime.DeepCopyJSON(obj)
	md := o["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		md["annotations"] = ann
	}
	ann["webhooks.example.com/request-uid"] = uid
	if _, ok := ann["team"]; !ok {
		ann["team"] = "platform"
	}
	md["uid"] = "uid-" + uid
	md["creationTimestamp"] = "2026-12-01T00:00:00Z"
	spec := o["spec"].(map[string]any)
	rules, _ := spec["rules"].([]any)
	for _, r := range rules {
		r := r.(map[string]any)
		if _, ok := r["retries"]; !ok {
			r["retries"] = int64(3)
		}
		if _, ok := r["timeoutSeconds"]; !ok && r["protocol"] == "HTTP" {
			r["timeoutSeconds"] = int64(30)
		}
		if r["timeoutSeconds"] == int64(0) {
			r["timeoutSeconds"] = int64(1)
		}
	}
	if _, ok := spec["replicas"]; !ok && spec["mode"] == "ha" {
		spec["replicas"] = int64(3)
	}
	if _, ok := spec["backend"]; !ok {
		spec["backend"] = map[string]any{"port": int64(8080), "tls": map[string]any{"enabled": true, "minVersion": "1.2"}}
	}
	return o
}

func gadget(t *testing.T, name, spec string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := yaml.Unmarshal([]byte(spec), &s); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": name, "namespace": "app"}, "spec": s})
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return runtime.DeepCopyJSON(normalizeNumbers(out).(map[string]any))
}

// normalizeNumbers turns float64 integers into int64, as the API server's
// JSON decoding does.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}

func observe(objs ...map[string]any) []Observation {
	var obs []Observation
	for i, o := range objs {
		obs = append(obs, Observation{
			ID: fmt.Sprintf("Gadget app/%s", o["metadata"].(map[string]any)["name"]), APIVersion: "example.com/v1", Kind: "Gadget",
			Sent: o, Runs: [2]map[string]any{admit(o, fmt.Sprintf("a%d", i)), admit(o, fmt.Sprintf("b%d", i))},
		})
	}
	return obs
}

func gadgets(t *testing.T) []map[string]any {
	return []map[string]any{
		gadget(t, "web", `{mode: ha, rules: [{name: a, protocol: HTTP}, {name: b, protocol: TCP}, {name: c, protocol: HTTP, timeoutSeconds: 5}]}`),
		gadget(t, "db", `{mode: single, rules: [{name: a, protocol: TCP}]}`),
		gadget(t, "cache", `{mode: ha, replicas: 5, backend: {port: 9000}, rules: [{name: a, protocol: HTTP}, {name: b, protocol: HTTP, retries: 1}]}`),
		gadget(t, "queue", `{mode: single}`),
	}
}

func ruleTexts(res *Result) []string {
	var out []string
	for _, r := range res.Rules {
		s := fmt.Sprintf("%s = %s", r.Path, jsonText(r.Value))
		switch {
		case r.Format != "":
			s = fmt.Sprintf("%s = format %s", r.Path, r.Format)
		case r.Insert != "":
			s = fmt.Sprintf("%s += %s %s by %s", r.Path, jsonText(r.Value), r.Insert, r.Key)
		case r.Drop:
			s = fmt.Sprintf("%s drop %s", r.Path, jsonText(r.Value))
		}
		if r.When != "" {
			s += " when " + r.When
		}
		out = append(out, s)
	}
	return out
}

func TestBuildGeneralises(t *testing.T) {
	res := Build(observe(gadgets(t)...))
	want := []string{
		`.metadata.annotations = {"team":"platform"}`,
		`.spec.backend = {"port":8080,"tls":{"enabled":true,"minVersion":"1.2"}}`,
		`.spec.replicas = 3 when .spec.mode == "ha"`,
		`.spec.rules[] | select(.protocol == "HTTP") | .timeoutSeconds = 30`,
		`.spec.rules[].retries = 3`,
	}
	if got := ruleTexts(res); !reflect.DeepEqual(got, want) {
		t.Errorf("rules:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// The identity annotation is reported with the rule that covers it.
	f := finding(t, res, `.metadata.annotations["webhooks.example.com/request-uid"]`, ReasonRuns)
	if f.Ignore == nil || f.Ignore.Group != "example.com" || f.Ignore.Kind != "Gadget" || f.Ignore.JQPathExpressions[0] != `.metadata.annotations["webhooks.example.com/request-uid"]` {
		t.Errorf("ignore rule: %+v", f.Ignore)
	}
	if len(f.Objects) != 4 || !strings.Contains(strings.Join(f.Values, " "), `"a0" then "b0"`) {
		t.Errorf("finding: %+v", f)
	}
	finding(t, res, ".metadata.uid", ReasonServer)
	for _, r := range res.Rules {
		if strings.Contains(r.Path, "uid") || strings.Contains(jsonText(r.Value), "a0") {
			t.Errorf("learned an identity: %+v", r)
		}
	}
}

func finding(t *testing.T, res *Result, path, reason string) Finding {
	t.Helper()
	for _, f := range res.Findings {
		if f.Path == path && f.Reason == reason {
			return f
		}
	}
	t.Fatalf("no finding %s %s in %+v", reason, path, res.Findings)
	return Finding{}
}

// TestLearnedProfileFills: the profile fills each sent object to what
// admission stored, identities and server metadata aside, and lints.
func TestLearnedProfileFills(t *testing.T) {
	objs := gadgets(t)
	obs := observe(objs...)
	res := Build(obs)
	p := Profile("prod-webhooks", "v2026.12.1", res, operators.Learned{Cluster: "https://127.0.0.1:6443", ServerVersion: "v1.34.2", Objects: len(obs)})
	b, err := operators.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := operators.ParseProfile("learned.yaml", b)
	if err != nil {
		t.Fatalf("lint: %v\n%s", err, b)
	}
	e, err := defaults.Compile([]*operators.Resolution{{Operator: "prod-webhooks", Requested: "v2026.12.1", Profile: lp}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range obs {
		filled := runtime.DeepCopyJSON(objs[i])
		if err := e.Fill(filled, nil); err != nil {
			t.Fatal(err)
		}
		want := cluster.Comparable(o.Runs[0])
		delete(want["metadata"].(map[string]any)["annotations"].(map[string]any), "webhooks.example.com/request-uid")
		got := cluster.Comparable(filled)
		if jsonText(got) != jsonText(want) {
			t.Errorf("%s: filled\n  %s\nstored\n  %s", o.ID, jsonText(got), jsonText(want))
		}
	}
}

func TestBuildDeterministic(t *testing.T) {
	objs := gadgets(t)
	a := Build(observe(objs...))
	rev := append([]map[string]any{}, objs...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	b := Build(observe(rev...))
	pa, _ := operators.Marshal(Profile("x", "v1.0.0", a, operators.Learned{Cluster: "c", ServerVersion: "v", Objects: 4}))
	pb, _ := operators.Marshal(Profile("x", "v1.0.0", b, operators.Learned{Cluster: "c", ServerVersion: "v", Objects: 4}))
	if string(pa) != string(pb) {
		t.Errorf("order of objects changes the profile:\n%s\n---\n%s", pa, pb)
	}
}

func TestBuildNotLearned(t *testing.T) {
	t.Run("rewrite", func(t *testing.T) {
		// A value written that admission replaces is learned as data (a
		// rewrite), never as a rule.
		res := Build(observe(gadget(t, "w", `{rules: [{name: a, protocol: TCP, timeoutSeconds: 0}]}`)))
		if len(res.Rewrites) != 1 || res.Rewrites[0].Path != ".spec.rules[].timeoutSeconds" || jsonText(res.Rewrites[0].From) != "0" || jsonText(res.Rewrites[0].To) != "1" {
			t.Errorf("rewrites %+v", res.Rewrites)
		}
		for _, r := range res.Rules {
			if strings.Contains(r.Path, "timeoutSeconds") {
				t.Errorf("learned a rewrite: %+v", r)
			}
		}
	})
	t.Run("differs-between-objects", func(t *testing.T) {
		obs := observe(gadget(t, "a", `{mode: x}`), gadget(t, "b", `{mode: y}`))
		obs[0].Runs[0]["spec"].(map[string]any)["owner"] = "alice"
		obs[0].Runs[1]["spec"].(map[string]any)["owner"] = "alice"
		obs[1].Runs[0]["spec"].(map[string]any)["owner"] = "bob"
		obs[1].Runs[1]["spec"].(map[string]any)["owner"] = "bob"
		res := Build(obs)
		f := finding(t, res, ".spec.owner", ReasonObjects)
		if f.Ignore == nil || len(f.Values) != 2 {
			t.Errorf("%+v", f)
		}
	})
	t.Run("only-some-items", func(t *testing.T) {
		// Added to some items and not others, with no sibling that tells.
		obs := observe(gadget(t, "a", `{rules: [{name: a}, {name: b}]}`), gadget(t, "b", `{rules: [{name: c}, {name: d}]}`))
		for _, o := range obs {
			for _, r := range o.Runs {
				r["spec"].(map[string]any)["rules"].([]any)[0].(map[string]any)["tag"] = "first"
			}
		}
		res := Build(obs)
		finding(t, res, ".spec.rules[].tag", ReasonObjects)
	})
	t.Run("stored-object", func(t *testing.T) {
		obs := observe(gadget(t, "a", `{mode: x}`))
		obs[0].Exists = true
		obs[0].Runs[0]["spec"].(map[string]any)["scaledBy"] = "hpa"
		res := Build(obs)
		finding(t, res, ".spec.scaledBy", ReasonStored)
	})
	t.Run("list-items-added", func(t *testing.T) {
		obs := observe(gadget(t, "a", `{rules: [{name: a}]}`))
		for _, r := range obs[0].Runs {
			spec := r["spec"].(map[string]any)
			spec["rules"] = append(spec["rules"].([]any), map[string]any{"name": "injected"})
		}
		res := Build(obs)
		finding(t, res, ".spec.rules", ReasonList)
	})
	t.Run("dropped", func(t *testing.T) {
		obs := observe(gadget(t, "a", `{unknown: 1}`))
		for _, r := range obs[0].Runs {
			delete(r["spec"].(map[string]any), "unknown")
		}
		finding(t, Build(obs), ".spec.unknown", ReasonDropped)
	})
}

func TestDiscriminatorNeedsEvidence(t *testing.T) {
	// Each sibling value seen once: a value per object, not a condition.
	slots := []slot{
		{parent: map[string]any{"mode": "a"}, outcome: "1"},
		{parent: map[string]any{"mode": "b"}, outcome: ""},
	}
	if s, ok := discriminator(slots); ok {
		t.Errorf("found %q from one slot per value", s)
	}
	slots = append(slots, slot{parent: map[string]any{"mode": "a"}, outcome: "1"})
	if s, ok := discriminator(slots); !ok || s != "mode" {
		t.Errorf("got %q %v, want mode", s, ok)
	}
}

// TestIdentifyingNeverDecides: a name, another object's name, an image or
// a host is never a condition, however often a value repeats (Knative's
// readiness probe is not a default of one image).
func TestIdentifyingNeverDecides(t *testing.T) {
	for _, sib := range []string{"name", "image", "host", "hosts", "revisionName", "secretName"} {
		slots := []slot{
			{parent: map[string]any{sib: "a"}, outcome: "1"},
			{parent: map[string]any{sib: "a"}, outcome: "1"},
			{parent: map[string]any{sib: "b"}, outcome: ""},
			{parent: map[string]any{sib: "b"}, outcome: ""},
		}
		if s, ok := discriminator(slots); ok {
			t.Errorf("%s decides: %q", sib, s)
		}
		if fits, _ := deciders(slots); len(fits) > 0 {
			t.Errorf("%s is a candidate: %v", sib, fits)
		}
	}
}

func TestWriteText(t *testing.T) {
	res := Build(observe(gadgets(t)...))
	var b strings.Builder
	(&Report{Operator: "prod-webhooks", Version: "v2026.12.1", Learned: operators.Learned{Cluster: "https://c", ServerVersion: "v1.34.2", Objects: 4},
		Objects: []Object{{ID: "ConfigMap app/c", Where: "x.yaml: document 1 (line 1)", Skipped: "built-in kind"}}, Rules: res.Rules, NotLearned: res.Findings}).WriteText(&b)
	out := b.String()
	for _, want := range []string{
		"# prod-webhooks@2026.12.1 learned from https://c (Kubernetes v1.34.2) from 4 object(s)",
		"skipped ConfigMap app/c (x.yaml: document 1 (line 1)): built-in kind",
		`example.com/v1 Gadget  .spec.replicas = 3  when .spec.mode == "ha"  (1 field(s), 1 object(s))`,
		`[differs-between-dry-runs]`,
		`ignoreDifferences: [{group: "example.com", kind: Gadget, jqPathExpressions: [".metadata.annotations[\"webhooks.example.com/request-uid\"]"]}]`,
		"example.com/v1 Gadget  .metadata.creationTimestamp, .metadata.uid  [server-owned]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestBuildNestedLists(t *testing.T) {
	objs := []map[string]any{
		gadget(t, "a", `{groups: [{items: [{n: 1}, {n: 2, weight: 5}]}, {items: [{n: 3}]}]}`),
		gadget(t, "b", `{groups: [{items: [{n: 4}]}]}`),
	}
	var obs []Observation
	for _, o := range objs {
		run := runtime.DeepCopyJSON(o)
		for _, g := range run["spec"].(map[string]any)["groups"].([]any) {
			for _, it := range g.(map[string]any)["items"].([]any) {
				if _, ok := it.(map[string]any)["weight"]; !ok {
					it.(map[string]any)["weight"] = int64(1)
				}
			}
		}
		obs = append(obs, Observation{ID: "Gadget " + o["metadata"].(map[string]any)["name"].(string), APIVersion: "example.com/v1", Kind: "Gadget", Sent: o, Runs: [2]map[string]any{run, runtime.DeepCopyJSON(run)}})
	}
	res := Build(obs)
	if got := strings.Join(ruleTexts(res), "\n"); got != ".spec.groups[].items[].weight = 1" {
		t.Errorf("rules: %s", got)
	}
	if res.Rules[0].Fields != 3 || res.Rules[0].Objects != 2 {
		t.Errorf("counts: %+v", res.Rules[0])
	}
}

// TestVariantsFindTheDecidingSibling: admission adds
// .spec.target.immutable false only when the target's creationPolicy is
// Owner. Two objects, one of each, cannot tell creationPolicy from the
// target's name; the varied objects can.
func TestVariantsFindTheDecidingSibling(t *testing.T) {
	admitTarget := func(o map[string]any) map[string]any {
		out := runtime.DeepCopyJSON(o)
		tg := out["spec"].(map[string]any)["target"].(map[string]any)
		if _, ok := tg["immutable"]; !ok && tg["creationPolicy"] == "Owner" {
			tg["immutable"] = false
		}
		return out
	}
	obsOf := func(objs ...map[string]any) []Observation {
		var obs []Observation
		for _, o := range objs {
			obs = append(obs, Observation{ID: "Gadget app/" + o["metadata"].(map[string]any)["name"].(string), APIVersion: "example.com/v1", Kind: "Gadget",
				Sent: o, Runs: [2]map[string]any{admitTarget(o), admitTarget(o)}})
		}
		return obs
	}
	obs := obsOf(
		gadget(t, "a", `{target: {name: a-secret, creationPolicy: Owner}}`),
		gadget(t, "b", `{target: {name: b-secret, creationPolicy: Merge}}`),
	)
	// From the two objects alone: not learned, and not a guess either.
	finding(t, Build(obs), ".spec.target.immutable", ReasonObjects)

	vs := Variants(obs)
	if len(vs) != 2 {
		t.Fatalf("want 2 variants (creationPolicy each way; the name never decides), got %d: %+v", len(vs), vs)
	}
	var objs []map[string]any
	for _, v := range vs {
		if !strings.Contains(v.ID, "(varied .spec.target.") {
			t.Errorf("variant id %q", v.ID)
		}
		objs = append(objs, v.Object)
	}
	res := Build(append(obs, obsOf(objs...)...))
	want := []string{`.spec.target.immutable = false when .spec.target.creationPolicy == "Owner"`}
	if got := ruleTexts(res); !reflect.DeepEqual(got, want) {
		t.Errorf("rules %q, want %q; findings %+v", got, want, res.Findings)
	}
	// The variants are copies: the observed objects are unchanged.
	if obs[0].Sent["spec"].(map[string]any)["target"].(map[string]any)["creationPolicy"] != "Owner" {
		t.Errorf("a variant changed the sent object")
	}
}

// TestVariantsPresence: a field added unless a sibling object is present
// (CloudNativePG's imageName unless imageCatalogRef) gets a presence
// condition.
func TestVariantsPresence(t *testing.T) {
	admitImage := func(o map[string]any) map[string]any {
		out := runtime.DeepCopyJSON(o)
		spec := out["spec"].(map[string]any)
		if _, ok := spec["image"]; !ok && spec["catalogRef"] == nil {
			spec["image"] = "registry.example/db:18"
		}
		return out
	}
	var obs []Observation
	for _, o := range []map[string]any{
		gadget(t, "a", `{instances: 3}`),
		gadget(t, "b", `{instances: 1, catalogRef: {name: pg, major: 16}}`),
	} {
		obs = append(obs, Observation{ID: "Gadget app/" + o["metadata"].(map[string]any)["name"].(string), APIVersion: "example.com/v1", Kind: "Gadget",
			Sent: o, Runs: [2]map[string]any{admitImage(o), admitImage(o)}})
	}
	for _, v := range Variants(obs) {
		out := admitImage(v.Object)
		obs = append(obs, Observation{ID: v.ID, APIVersion: "example.com/v1", Kind: "Gadget", Sent: v.Object, Runs: [2]map[string]any{out, out}})
	}
	want := []string{`.spec.image = "registry.example/db:18" when .spec.catalogRef == null`}
	if got := ruleTexts(Build(obs)); !reflect.DeepEqual(got, want) {
		t.Errorf("rules %q, want %q", got, want)
	}
}

// TestBuildCopies: a value admission copies from a sibling (CloudNativePG's
// initdb owner from its database) is reported, never learned as the one
// value seen; the default where the sibling is absent stays.
func TestBuildCopies(t *testing.T) {
	admitOwner := func(o map[string]any) map[string]any {
		out := runtime.DeepCopyJSON(o)
		db := out["spec"].(map[string]any)["db"].(map[string]any)
		if _, ok := db["name"]; !ok {
			db["name"] = "app"
			if _, ok := db["owner"]; !ok {
				db["owner"] = "app"
			}
		}
		if _, ok := db["owner"]; !ok {
			db["owner"] = db["name"]
		}
		return out
	}
	var obs []Observation
	for _, o := range []map[string]any{
		gadget(t, "a", `{db: {name: shop}}`),
		gadget(t, "b", `{db: {name: shop}}`),
		gadget(t, "c", `{db: {size: 1}}`),
		gadget(t, "d", `{db: {size: 2}}`),
	} {
		obs = append(obs, Observation{ID: "Gadget app/" + o["metadata"].(map[string]any)["name"].(string), APIVersion: "example.com/v1", Kind: "Gadget",
			Sent: o, Runs: [2]map[string]any{admitOwner(o), admitOwner(o)}})
	}
	res := Build(obs)
	for _, r := range res.Rules {
		if jsonText(r.Value) == `"shop"` {
			t.Errorf("learned a copy: %+v", r)
		}
	}
	finding(t, res, ".spec.db.owner", ReasonCopy)
	if got := strings.Join(ruleTexts(res), "\n"); !strings.Contains(got, `.spec.db.owner = "app" when .spec.db.name == null`) {
		t.Errorf("rules:\n%s", got)
	}
	// One object alone: the copy is reported too.
	finding(t, Build(obs[:1]), ".spec.db.owner", ReasonCopy)
}

// TestBuildByLength: a default that follows how many items a list has
// (Knative's container name and readiness probe) is learned with the
// list's length as condition, and, where items of one length differ, the
// sibling that decides among them; what neither explains is reported.
func TestBuildByLength(t *testing.T) {
	admitItems := func(o map[string]any) map[string]any {
		out := runtime.DeepCopyJSON(o)
		items := out["spec"].(map[string]any)["items"].([]any)
		for i, x := range items {
			it := x.(map[string]any)
			if _, ok := it["name"]; !ok {
				it["name"] = "main"
				if len(items) > 1 {
					it["name"] = fmt.Sprintf("main-%d", i)
				}
			}
			if _, ok := it["probe"]; !ok && (len(items) == 1 || it["port"] != nil) {
				it["probe"] = "tcp"
			}
		}
		return out
	}
	var obs []Observation
	for _, o := range []map[string]any{
		gadget(t, "a", `{items: [{image: x}]}`),
		gadget(t, "b", `{items: [{image: y}]}`),
		gadget(t, "c", `{items: [{image: x, port: 80}, {image: z}]}`),
		gadget(t, "d", `{items: [{image: z}, {image: y, port: 80}]}`),
	} {
		obs = append(obs, Observation{ID: "Gadget app/" + o["metadata"].(map[string]any)["name"].(string), APIVersion: "example.com/v1", Kind: "Gadget",
			Sent: o, Runs: [2]map[string]any{admitItems(o), admitItems(o)}})
	}
	res := Build(obs)
	want := []string{
		`.spec.items[] | select(.port == 80) | .probe = "tcp" when (.spec.items | length) == 2`,
		`.spec.items[].name = "main" when (.spec.items | length) == 1`,
		`.spec.items[].probe = "tcp" when (.spec.items | length) == 1`,
	}
	got := ruleTexts(res)
	for _, w := range want {
		if !strings.Contains(strings.Join(got, "\n"), w) {
			t.Errorf("no rule %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	// The names of several items follow their index: a format.
	if got := strings.Join(got, "\n"); !strings.Contains(got, `.spec.items[].name = format main-{index} when (.spec.items | length) == 2`) {
		t.Errorf("no format rule for two items:\n%s", got)
	}
}
