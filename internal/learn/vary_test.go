package learn

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

const replicaVariations = `apiVersion: cmp-defaults.io/v1alpha1
kind: LearnVariations
vary:
  - path: .spec.replica
    values:
      - null
      - {enabled: true}
      - {enabled: false}
      - {self: a, primary: b}
      - {self: a, primary: a}
  - path: .spec.backend.port
    values: [9000]
conditions:
  - 'if .spec.replica == null then false elif .spec.replica.enabled != null then .spec.replica.enabled else (.spec.replica.self // .metadata.name) != .spec.replica.primary end'
`

// admitReplica is a webhook whose default follows a value derived from
// several fields (CloudNativePG's archive_mode follows IsReplica()).
func admitReplica(obj map[string]any) map[string]any {
	o := runtime.DeepCopyJSON(obj)
	spec := o["spec"].(map[string]any)
	replica := false
	if r, ok := spec["replica"].(map[string]any); ok {
		if e, ok := r["enabled"].(bool); ok {
			replica = e
		} else {
			self, _ := r["self"].(string)
			replica = self != r["primary"]
		}
	}
	if _, ok := spec["archive"]; !ok {
		spec["archive"] = map[bool]string{true: "always", false: "on"}[replica]
	}
	if _, ok := spec["backend"]; !ok {
		spec["backend"] = map[string]any{"port": int64(8080), "tls": map[string]any{"enabled": true}}
	} else if b := spec["backend"].(map[string]any); b["tls"] == nil {
		b["tls"] = map[string]any{"enabled": true}
	}
	return o
}

func observeWith(admit func(map[string]any) map[string]any, objs []manifest.Object) []Observation {
	var obs []Observation
	for _, o := range objs {
		obs = append(obs, Observation{ID: "Gadget app/" + o.Data["metadata"].(map[string]any)["name"].(string), APIVersion: "example.com/v1", Kind: "Gadget",
			Sent: o.Data, Runs: [2]map[string]any{admit(o.Data), admit(o.Data)}})
	}
	return obs
}

func TestGenerate(t *testing.T) {
	v, err := ParseVariations("vary.yaml", []byte(replicaVariations))
	if err != nil {
		t.Fatal(err)
	}
	seeds := []manifest.Object{{Data: gadget(t, "seed", `{mode: single}`), Source: "seeds.yaml", Doc: 1, Line: 1},
		{Data: gadget(t, "other", `{mode: ha, replica: {enabled: true}}`), Source: "seeds.yaml", Doc: 2, Line: 5}}
	got, err := v.Generate(seeds)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range got {
		names = append(names, fmt.Sprintf("%s %s", o.Data["metadata"].(map[string]any)["name"], jsonText(o.Data["spec"])))
	}
	want := []string{
		`seed {"mode":"single"}`,
		`other {"mode":"ha","replica":{"enabled":true}}`,
		`seed-v1 {"mode":"single","replica":{"enabled":true}}`,
		`seed-v2 {"mode":"single","replica":{"enabled":false}}`,
		`seed-v3 {"mode":"single","replica":{"primary":"b","self":"a"}}`,
		`seed-v4 {"mode":"single","replica":{"primary":"a","self":"a"}}`,
		`seed-v5 {"backend":{"port":9000},"mode":"single"}`,
		`other-v1 {"mode":"ha"}`, // null removes; {enabled: true} is the seed itself
		`other-v2 {"mode":"ha","replica":{"enabled":false}}`,
		`other-v3 {"mode":"ha","replica":{"primary":"b","self":"a"}}`,
		`other-v4 {"mode":"ha","replica":{"primary":"a","self":"a"}}`,
		`other-v5 {"backend":{"port":9000},"mode":"ha","replica":{"enabled":true}}`,
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("generated:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if got[0].Data["spec"].(map[string]any)["replica"] != nil || seeds[1].Data["spec"].(map[string]any)["replica"] == nil {
		t.Error("a seed was changed")
	}
	// A number of the variations file is read as a manifest's is: an
	// integer is an int64 (the schema check of 'integer' fields).
	if port := got[6].Data["spec"].(map[string]any)["backend"].(map[string]any)["port"]; port != int64(9000) {
		t.Errorf("a varied integer is %T %v, want int64 9000", port, port)
	}
	if got[7].Origin != "varied .spec.replica = null" || got[7].Source != "seeds.yaml" {
		t.Errorf("origin of a variation: %q from %q", got[7].Origin, got[7].Source)
	}
}

// A dimension with kinds varies the seeds of those kinds only.
func TestGenerateKinds(t *testing.T) {
	v, err := ParseVariations("vary.yaml", []byte(`apiVersion: cmp-defaults.io/v1alpha1
kind: LearnVariations
vary:
  - path: .spec.mode
    values: [ha]
    kinds: [Gadget]
  - path: .spec.size
    values: [2]
  - path: .spec.zone
    values: [a]
    kinds: [example.com/v1 Widget]
`))
	if err != nil {
		t.Fatal(err)
	}
	other := gadget(t, "widget", `{mode: single}`)
	other["kind"] = "Widget"
	got, err := v.Generate([]manifest.Object{{Data: gadget(t, "seed", `{mode: single}`)}, {Data: other}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range got {
		names = append(names, fmt.Sprintf("%s %s %s", o.Data["kind"], o.Data["metadata"].(map[string]any)["name"], jsonText(o.Data["spec"])))
	}
	want := []string{
		`Gadget seed {"mode":"single"}`,
		`Widget widget {"mode":"single"}`,
		`Gadget seed-v1 {"mode":"ha"}`,
		`Gadget seed-v2 {"mode":"single","size":2}`,
		`Widget widget-v1 {"mode":"single","size":2}`,
		`Widget widget-v2 {"mode":"single","zone":"a"}`,
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("generated:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

// A default that follows whether the object is a replica: the sibling's
// presence does not decide it ({enabled: false}), so without the
// condition nothing is learned; with it, one rule per value.
func TestVariationsCondition(t *testing.T) {
	v, err := ParseVariations("vary.yaml", []byte(replicaVariations))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := v.Generate([]manifest.Object{{Data: gadget(t, "seed", `{mode: single}`)}})
	if err != nil {
		t.Fatal(err)
	}
	obs := observeWith(admitReplica, objs)
	without := ruleTexts(Build(obs))
	for _, r := range without {
		if strings.HasPrefix(r, ".spec.archive ") {
			t.Errorf("learned without the condition: %s", r)
		}
	}
	got := ruleTexts(v.Build(obs))
	cond := "(" + v.Conditions[0] + ")"
	for _, w := range []string{`.spec.archive = "always" when ` + cond + ` == true`, `.spec.archive = "on" when ` + cond + ` == false`} {
		if !contains(got, w) {
			t.Errorf("missing %s in\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func TestTouched(t *testing.T) {
	obs := observeWith(admitReplica, []manifest.Object{{Data: gadget(t, "seed", `{mode: single}`)}})
	vs := Touched(obs)
	if len(vs) != 1 || jsonText(vs[0].Object["spec"]) != `{"backend":{},"mode":"single"}` {
		t.Fatalf("touched: %+v", vs)
	}
	// The empty object shows what admission fills inside it.
	obs = append(obs, observeWith(admitReplica, []manifest.Object{{Data: vs[0].Object}})...)
	got := ruleTexts(Build(obs))
	if !contains(got, `.spec.backend.tls = {"enabled":true}`) {
		t.Errorf("the field inside the empty object is not learned:\n%s", strings.Join(got, "\n"))
	}
}

func TestParseVariationsErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"apiVersion: v1\nkind: LearnVariations\n", "apiVersion and kind must be"},
		{"apiVersion: cmp-defaults.io/v1alpha1\nkind: LearnVariations\nvary: [{path: '.spec.rules[].x', values: [1]}]\n", "without []"},
		{"apiVersion: cmp-defaults.io/v1alpha1\nkind: LearnVariations\nvary: [{path: .spec.x}]\n", "no values"},
		{"apiVersion: cmp-defaults.io/v1alpha1\nkind: LearnVariations\nconditions: ['now']\n", "conditions[0]"},
		{"apiVersion: cmp-defaults.io/v1alpha1\nkind: LearnVariations\nvaries: []\n", "unknown field"},
	} {
		_, err := ParseVariations("vary.yaml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "vary.yaml: ") {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}

// A default that copies a value derived from elsewhere in the object (the
// tablespace owner follows the bootstrap owner): learned only where the
// condition's value leads to one value on several inputs and is not that
// value (no owner stated: "app"); the copies of an owner's name are
// reported.
func TestVariationsPartialCondition(t *testing.T) {
	v, err := ParseVariations("vary.yaml", []byte(`apiVersion: cmp-defaults.io/v1alpha1
kind: LearnVariations
vary:
  - path: .spec.owner
    values: [shop, ledger]
  - path: .spec.items
    values: [[{name: x}, {name: y, owner: z}]]
conditions: [.spec.owner]
`))
	if err != nil {
		t.Fatal(err)
	}
	seeds := []manifest.Object{{Data: gadget(t, "a", `{items: [{name: i}]}`)}, {Data: gadget(t, "b", `{mode: ha, items: [{name: j}]}`)}}
	objs, err := v.Generate(seeds)
	if err != nil {
		t.Fatal(err)
	}
	admitOwner := func(obj map[string]any) map[string]any {
		o := runtime.DeepCopyJSON(obj)
		spec := o["spec"].(map[string]any)
		owner, ok := spec["owner"].(string)
		if !ok {
			owner = "app"
		}
		for _, it := range spec["items"].([]any) {
			if m := it.(map[string]any); m["owner"] == nil {
				m["owner"] = owner
			}
		}
		return o
	}
	res := v.Build(observeWith(admitOwner, objs))
	got := ruleTexts(res)
	if want := []string{`.spec.items[].owner = "app" when (.spec.owner) == null`}; !reflect.DeepEqual(got, want) {
		t.Errorf("rules: %v, want %v", got, want)
	}
	reported := false
	for _, f := range res.Findings {
		if f.Path == ".spec.items[].owner" && f.Reason == ReasonCopy && f.Ignore != nil && strings.Contains(f.Why, "copies the value of (.spec.owner)") {
			reported = true
		}
	}
	if !reported {
		t.Errorf("the owners seen once are not reported: %+v", res.Findings)
	}
}

// A written value admission replaces only where a field away from it is
// not written (OpenKruise before v1.4 resets a StatefulSet's rollingUpdate
// where updateStrategy.type is absent): no sibling decides it, so without
// the condition it is reported; with it, a rewrite under that condition.
func TestVariationsConditionalRewrite(t *testing.T) {
	v, err := ParseVariations("vary.yaml", []byte(`apiVersion: cmp-defaults.io/v1alpha1
kind: LearnVariations
vary:
  - path: .spec.strategy
    values:
      - null
      - {type: Rolling}
      - {rolling: {partition: 2}}
      - {type: Rolling, rolling: {partition: 2}}
conditions: [.spec.strategy.type]
`))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := v.Generate([]manifest.Object{{Data: gadget(t, "a", `{mode: single}`)}, {Data: gadget(t, "b", `{mode: ha}`)}})
	if err != nil {
		t.Fatal(err)
	}
	reset := func(obj map[string]any) map[string]any {
		o := runtime.DeepCopyJSON(obj)
		spec := o["spec"].(map[string]any)
		st, _ := spec["strategy"].(map[string]any)
		if st == nil {
			st = map[string]any{}
			spec["strategy"] = st
		}
		if st["type"] == nil {
			st["type"], st["rolling"] = "Rolling", map[string]any{}
		}
		r, _ := st["rolling"].(map[string]any)
		if r == nil {
			r = map[string]any{}
			st["rolling"] = r
		}
		if r["partition"] == nil {
			r["partition"] = int64(0)
		}
		return o
	}
	obs := observeWith(reset, objs)
	if res := Build(obs); len(res.Rewrites) != 0 {
		t.Errorf("learned without the condition: %+v", res.Rewrites)
	} else if f := finding(t, res, ".spec.strategy.rolling.partition", ReasonRewrite); !strings.Contains(f.Why, "no field decides") {
		t.Errorf("finding: %+v", f)
	}
	res := v.Build(obs)
	if len(res.Rewrites) != 1 {
		t.Fatalf("rewrites: %+v", res.Rewrites)
	}
	r := res.Rewrites[0]
	if r.Path != ".spec.strategy.rolling.partition" || r.When != "(.spec.strategy.type) == null" || jsonText(r.From) != "2" || jsonText(r.To) != "0" || r.Objects != 2 {
		t.Errorf("rewrite: %+v", r)
	}
	// One object without a type is no evidence: reported, as a rule would be.
	var one []manifest.Object
	for _, o := range objs {
		st, _ := o.Data["spec"].(map[string]any)["strategy"].(map[string]any)
		if st["type"] != nil || o.Data["spec"].(map[string]any)["mode"] == "single" {
			one = append(one, o)
		}
	}
	if res := v.Build(observeWith(reset, one)); len(res.Rewrites) != 0 {
		t.Errorf("learned from one object: %+v", res.Rewrites)
	}
}
