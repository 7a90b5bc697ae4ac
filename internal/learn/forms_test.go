package learn

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// admitForms is an admission that needs the grown rule language: it
// inserts a default entry first into a queries list that lacks one of its
// name (unless disabled), names unnamed items item-N by their position
// among the unnamed when there are several, makes a mount read-only unless
// its volume is an emptyDir or a claim (dropping readOnly: false there, as
// a Go type with omitempty does), and rewrites timeout 0 to 300.
func admitForms(o map[string]any) map[string]any {
	out := runtime.DeepCopyJSON(o)
	spec := out["spec"].(map[string]any)
	if m, ok := spec["monitoring"].(map[string]any); ok && m["disabled"] != true {
		l, _ := m["queries"].([]any)
		found := false
		for _, e := range l {
			found = found || e.(map[string]any)["name"] == "default"
		}
		if !found {
			m["queries"] = append([]any{map[string]any{"name": "default", "key": "q"}}, l...)
		}
	}
	if spec["timeout"] == int64(0) {
		spec["timeout"] = int64(300)
	}
	writable := map[any]bool{}
	vols, _ := spec["volumes"].([]any)
	for _, v := range vols {
		v := v.(map[string]any)
		if v["emptyDir"] != nil || v["claim"] != nil {
			writable[v["name"]] = true
		}
	}
	items, _ := spec["items"].([]any)
	n := 0
	for _, x := range items {
		it := x.(map[string]any)
		if _, ok := it["name"]; !ok {
			it["name"] = "item"
			if len(items) > 1 {
				it["name"] = fmt.Sprintf("item-%d", n)
				n++
			}
		}
		mounts, _ := it["mounts"].([]any)
		for _, y := range mounts {
			m := y.(map[string]any)
			if !writable[m["name"]] {
				m["readOnly"] = true
			} else if m["readOnly"] == false {
				delete(m, "readOnly")
			}
		}
	}
	return out
}

func formsObservations(t *testing.T, specs ...string) []Observation {
	var obs []Observation
	for i, s := range specs {
		o := gadget(t, fmt.Sprintf("g%d", i), s)
		obs = append(obs, Observation{ID: fmt.Sprintf("Gadget app/g%d", i), APIVersion: "example.com/v1", Kind: "Gadget",
			Sent: o, Runs: [2]map[string]any{admitForms(o), admitForms(o)}})
	}
	return obs
}

// fillsLikeAdmission: the learned profile, filled into each input, gives
// what admission stored, except where a rewrite is reported: there the
// object keeps what was written, and a warning names the path.
func fillsLikeAdmission(t *testing.T, res *Result, obs []Observation) {
	t.Helper()
	y, err := operators.Marshal(Profile("forms", "v1.0.0", res, operators.Learned{Cluster: "c", ServerVersion: "v", Objects: len(obs)}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := operators.ParseProfile("forms.yaml", y)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	e, err := defaults.Compile([]*operators.Resolution{{Operator: "forms", Requested: "v1.0.0", Profile: p}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		filled := runtime.DeepCopyJSON(o.Sent)
		if err := e.Fill(filled, nil); err != nil {
			t.Fatal(err)
		}
		rw, err := e.Rewrites(filled)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rw {
			if err := setConcrete(filled, r.Path, r.To); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := jsonText(cluster.Comparable(filled)), jsonText(cluster.Comparable(o.Runs[0])); got != want {
			t.Errorf("%s: filled (rewrites applied)\n  %s\nstored\n  %s\nprofile:\n%s", o.ID, got, want, y)
		}
	}
}

// setConcrete sets the value at a concrete path (.a.b[1].c).
func setConcrete(obj map[string]any, path string, v any) error {
	p, err := tree.ParseConcrete(path)
	if err != nil {
		return err
	}
	parent, ok := p[:len(p)-1].Lookup(obj)
	if !ok {
		return fmt.Errorf("%s: no parent", path)
	}
	switch k := p[len(p)-1].(type) {
	case string:
		parent.(map[string]any)[k] = v
	case int:
		parent.([]any)[k] = v
	}
	return nil
}

func TestLearnInsert(t *testing.T) {
	obs := formsObservations(t,
		`{monitoring: {}}`,
		`{monitoring: {queries: [{name: mine, key: q}]}}`,
		`{monitoring: {queries: [{name: a, key: x}, {name: b, key: y}]}}`,
		`{monitoring: {queries: [{name: mine, key: q}, {name: default, key: other}]}}`,
		`{monitoring: {disabled: true, queries: [{name: mine, key: q}]}}`,
		`{monitoring: {disabled: false, queries: [{name: mine, key: q}]}}`,
	)
	res := Build(obs)
	got := strings.Join(ruleTexts(res), "\n")
	for _, w := range []string{
		`.spec.monitoring.queries += {"key":"q","name":"default"} first by name when .spec.monitoring.disabled == false`,
		`.spec.monitoring.queries += {"key":"q","name":"default"} first by name when .spec.monitoring.disabled == null`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("no rule %s in:\n%s", w, got)
		}
	}
	fillsLikeAdmission(t, res, obs)
	// Without a list that had an entry of that name, which field tells
	// the entry is there is unknown: reported.
	res = Build(obs[:3])
	finding(t, res, ".spec.monitoring.queries", ReasonList)
}

func TestLearnFormatByPosition(t *testing.T) {
	obs := formsObservations(t,
		`{items: [{image: a}]}`,
		`{items: [{image: a}, {image: b}]}`,
		`{items: [{image: b}]}`,
		`{items: [{image: a, name: given}, {image: b}]}`,
		`{items: [{image: a}, {image: b}, {image: c}]}`,
		`{items: [{image: a}, {name: given, image: b}, {image: c}]}`,
	)
	res := Build(obs)
	got := strings.Join(ruleTexts(res), "\n")
	for _, w := range []string{
		`.spec.items[].name = "item" when (.spec.items | length) == 1`,
		`.spec.items[].name = format item-{n} when (.spec.items | length) >= 2`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("no rule %s in:\n%s", w, got)
		}
	}
	fillsLikeAdmission(t, res, obs)
	// Three items all unnamed (index and position agree) and two with a
	// named one first (only the position fits): one format for both.
	res = Build(obs[:5])
	if got := strings.Join(ruleTexts(res), "\n"); !strings.Contains(got, `format item-{n} when (.spec.items | length) >= 2`) {
		t.Errorf("rules:\n%s", got)
	}
	// All unnamed: the index and the position agree; the index is taken.
	res = Build(obs[:3])
	if got := strings.Join(ruleTexts(res), "\n"); !strings.Contains(got, `format item-{index} when (.spec.items | length) == 2`) {
		t.Errorf("rules:\n%s", got)
	}
}

func TestLearnOtherListDecides(t *testing.T) {
	vols := `volumes: [{name: s, secret: {name: x}}, {name: c, configMap: {name: y}}, {name: e, emptyDir: {}}, {name: p, claim: {name: z}}]`
	obs := formsObservations(t,
		`{`+vols+`, items: [{name: a, mounts: [{name: s, path: /a}, {name: e, path: /b}]}]}`,
		`{`+vols+`, items: [{name: a, mounts: [{name: e, path: /a}, {name: c, path: /b}, {name: p, path: /c}]}]}`,
		`{`+vols+`, items: [{name: a, mounts: [{name: p, path: /a}, {name: s, path: /b}]}]}`,
		`{`+vols+`, items: [{name: a, mounts: [{name: c, path: /a}, {name: e, path: /c, readOnly: false}]}]}`,
		`{`+vols+`, items: [{name: a, mounts: [{name: p, path: /b, readOnly: false}, {name: s, path: /c, readOnly: false}]}]}`,
		`{timeout: 0}`,
		`{timeout: 5}`,
	)
	res := Build(obs)
	got := strings.Join(ruleTexts(res), "\n")
	for _, w := range []string{
		`. as $o | .spec.items[].mounts[] | select(.name as $n | any($o.spec.volumes[]?; .name == $n and .secret != null)) | .readOnly = true`,
		`. as $o | .spec.items[].mounts[] | select(.name as $n | any($o.spec.volumes[]?; .name == $n and .configMap != null)) | .readOnly = true`,
		`. as $o | .spec.items[].mounts[] | select(.name as $n | any($o.spec.volumes[]?; .name == $n and .emptyDir != null)) | .readOnly drop false`,
		`. as $o | .spec.items[].mounts[] | select(.name as $n | any($o.spec.volumes[]?; .name == $n and .claim != null)) | .readOnly drop false`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("no rule %s in:\n%s", w, got)
		}
	}
	var rw []string
	for _, r := range res.Rewrites {
		rw = append(rw, fmt.Sprintf("%s %s -> %s", r.Path, jsonText(r.From), jsonText(r.To)))
	}
	for _, w := range []string{
		`.spec.timeout 0 -> 300`,
		`. as $o | .spec.items[].mounts[] | select(.name as $n | any($o.spec.volumes[]?; .name == $n and .secret != null)) | .readOnly false -> true`,
	} {
		if !strings.Contains(strings.Join(rw, "\n"), w) {
			t.Errorf("no rewrite %s in:\n%s", w, strings.Join(rw, "\n"))
		}
	}
	fillsLikeAdmission(t, res, obs)
}
