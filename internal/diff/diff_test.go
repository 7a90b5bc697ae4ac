package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

func profile(t *testing.T, version, body string) *operators.Resolution {
	t.Helper()
	p, err := operators.ParseProfile("demo-"+version+".yaml", []byte(`apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: demo
version: `+version+`
resources:
`+body))
	if err != nil {
		t.Fatal(err)
	}
	return &operators.Resolution{Operator: "demo", Requested: version, Profile: p}
}

func TestProfiles(t *testing.T) {
	a := profile(t, "v1.0.0", `  - group: demo.io
    version: v1
    kind: Widget
    defaults:
      - {path: ".spec.gone", type: string, value: x}
      - {path: ".spec.same", type: string, value: s}
      - {path: ".spec.changed", type: string, value: old}
    mutations:
      - {path: ".spec.m", value: 1, when: ".spec.on"}
  - group: demo.io
    version: v1
    kind: Old
    defaults:
      - {path: ".spec.a", type: string, value: a}
`)
	b := profile(t, "v2.0.0", `  - group: demo.io
    version: v1
    kind: Widget
    defaults:
      - {path: ".spec.same", type: string, value: s}
      - {path: ".spec.changed", type: integer, value: 3}
      - {path: ".spec.new", type: boolean, value: true}
    mutations:
      - {path: ".spec.m", value: 2, when: ".spec.on"}
  - group: demo.io
    version: v2
    kind: Widget
    defaults:
      - {path: ".spec.b", type: string, value: b}
`)
	d := Profiles(a, b)
	var got []string
	for _, k := range d.Kinds {
		for _, r := range k.Rules {
			got = append(got, k.APIVersion+" "+k.Kind+" "+string(k.Change)+": "+string(r.Change)+" "+r.Type+" "+r.Path+" "+r.Detail)
		}
	}
	want := []string{
		"demo.io/v1 Old removed: removed default .spec.a ",
		"demo.io/v1 Widget changed: removed default .spec.gone ",
		"demo.io/v1 Widget changed: changed default .spec.changed type string -> integer",
		"demo.io/v1 Widget changed: changed mutation .spec.m ",
		"demo.io/v1 Widget changed: added default .spec.new ",
		"demo.io/v2 Widget added: added default .spec.b ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d.Count() != 6 {
		t.Errorf("count %d", d.Count())
	}
	var buf bytes.Buffer
	WriteProfiles(&buf, d)
	for _, s := range []string{"demo.io/v1 Old  (no defaults left in demo@2.0.0)", "demo.io/v2 Widget  (no defaults in demo@1.0.0)", `~ default  .spec.changed: "old" -> 3  (type string -> integer)`, "6 rule(s) in 3 kind(s): 2 added, 2 removed, 2 changed."} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, buf.String())
		}
	}
	if n := Profiles(a, a).Count(); n != 0 {
		t.Errorf("same profile: %d changes", n)
	}
}

func TestObjects(t *testing.T) {
	a, err := manifest.Decode("a.yaml", []byte(`apiVersion: v1
kind: X
metadata: {name: x}
spec: {gone: 1, same: {k: v}, list: [{a: 1, d: x}], changed: a}
---
apiVersion: v1
kind: Z
metadata: {name: z}
`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := manifest.Decode("a.yaml", []byte(`apiVersion: v1
kind: X
metadata: {name: x}
spec: {same: {k: v}, list: [{a: 1}], changed: b, new: {n: 1}}
---
apiVersion: v1
kind: Z
metadata: {name: z}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := Objects(a, b)
	if len(got) != 1 || got[0].Object != "v1 X x" {
		t.Fatalf("got %+v", got)
	}
	var lines []string
	for _, c := range got[0].Changes {
		lines = append(lines, c.Change+" "+c.Path)
	}
	want := "changes .spec.changed,disappears .spec.gone,disappears .spec.list[0].d,appears .spec.new"
	if strings.Join(lines, ",") != want {
		t.Errorf("got %s, want %s", strings.Join(lines, ","), want)
	}
}

// A rule of another form (insert) at the path and condition of a plain
// one is another rule: both are told, neither hides the other.
func TestProfilesMutationForms(t *testing.T) {
	a := profile(t, "v1.0.0", `  - group: demo.io
    version: v1
    kind: Widget
    mutations:
      - {path: ".spec.q", value: [{name: d}], when: ".spec.on"}
`)
	b := profile(t, "v2.0.0", `  - group: demo.io
    version: v1
    kind: Widget
    mutations:
      - {path: ".spec.q", value: [{name: d}], when: ".spec.on"}
      - {path: ".spec.q", value: {name: d}, insert: first, key: name, when: ".spec.on"}
`)
	d := Profiles(a, b)
	if len(d.Kinds) != 1 || len(d.Kinds[0].Rules) != 1 || d.Kinds[0].Rules[0].Type != "mutation (insert first by name)" || string(d.Kinds[0].Rules[0].Change) != "added" {
		t.Fatalf("%+v", d.Kinds)
	}
}
