package operators

import (
	"strings"
	"testing"
)

const formsSample = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: v1.0.0
resources:
  - group: acme.io
    version: v1
    kind: Thing
    mutations:
      - path: .spec.queries
        value: {name: default, key: q}
        insert: first
        key: name
      - path: .spec.containers[].name
        format: app-{n}
      - path: .spec.flag
        value: false
        drop: true
      - path: .spec.plain
        value: false
    rewrites:
      - path: .spec.timeout
        from: 0
        to: 300
        reason: stored as 300
`

// The mutation forms and rewrites survive YAML and the compiled form; a
// profile without them compiles to the bytes it always had (no extension).
func TestMutationFormsRoundTrip(t *testing.T) {
	want, err := ParseProfile("acme.yaml", []byte(formsSample))
	if err != nil {
		t.Fatal(err)
	}
	b, err := CompileFile("acme.yaml", []byte(formsSample))
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalCompiled("acme.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	if err := SameProfile(got, want); err != nil {
		t.Fatal(err)
	}
	if m := got.Resources[0].Mutations; m[0].Insert != "first" || m[0].Key != "name" || m[1].Format != "app-{n}" || !m[2].Drop || got.Resources[0].Rewrites[0].To != int64(300) {
		t.Fatalf("read back: %+v %+v", m, got.Resources[0].Rewrites)
	}
	y, err := Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "format: app-{n}\n") || strings.Contains(string(y), "value: null") || !strings.Contains(string(y), "path: .spec.plain\n        value: false") {
		t.Fatalf("YAML:\n%s", y)
	}
	if _, err := ParseProfile("again.yaml", y); err != nil {
		t.Fatalf("its own YAML: %v", err)
	}
	plain := strings.Split(formsSample, "    mutations:")[0] + "    mutations:\n      - path: .spec.plain\n        value: 1\n"
	pb, err := CompileFile("acme.yaml", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := ParseProfile("acme.yaml", []byte(plain))
	p.Resources[0].Mutations[0].Format = "x-{n}"
	p.Resources[0].Mutations[0].Value = nil
	eb, _ := MarshalCompiled(p)
	if len(eb) <= len(pb) {
		t.Fatal("a profile with a format rule compiles without its extension")
	}
}

func TestMutationFormsRefused(t *testing.T) {
	head := strings.Split(formsSample, "    mutations:")[0] + "    mutations:\n"
	for rule, want := range map[string]string{
		"      - {path: .spec.a, value: 1, format: 'x-{n}'}":                   "give only one",
		"      - {path: .spec.a, format: x}":                                   "neither {index} nor {n}",
		"      - {path: .spec.a, value: {name: x}, insert: middle, key: name}": "want first or last",
		"      - {path: .spec.a, value: {name: x}, insert: first}":             "insert needs key",
		"      - {path: .spec.a, value: {name: x}, insert: first, key: id}":    "insert needs key",
		"      - {path: .spec.a, value: true, drop: true}":                     "drop removes a zero value",
		"      - {path: .spec.a, value: 1, key: name}":                         "key is only for insert",
	} {
		_, err := ParseProfile("acme.yaml", []byte(head+rule+"\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", rule, err, want)
		}
	}
}
