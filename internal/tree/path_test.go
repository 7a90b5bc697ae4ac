package tree

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

func jsonObj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLookup(t *testing.T) {
	v := jsonObj(t, `{"metadata":{"annotations":{"a/b.c":"x"}},"spec":{"l":[{"k":1},{"k":2}]}}`)
	lookup := func(path string) (any, bool) {
		p, err := ParseConcrete(path)
		if err != nil {
			return nil, false
		}
		return p.Lookup(v)
	}
	for path, want := range map[string]any{
		`.metadata.annotations["a/b.c"]`: "x",
		".spec.l[1].k":                   2.0,
	} {
		if got, ok := lookup(path); !ok || got != want {
			t.Errorf("%s: got %v %v, want %v", path, got, ok, want)
		}
	}
	for _, path := range []string{".spec.l[2]", ".spec.m", ".spec.l.k", `["x"]`} {
		if _, ok := lookup(path); ok {
			t.Errorf("%s: found", path)
		}
	}
}

func TestConcretePathRoundTrip(t *testing.T) {
	for _, p := range []Path{{}, {"spec", "data", 0, "remoteRef"}, {"a/b", "c"}, {"metadata", "annotations", "x.y/z"}, {"l", 3, 1, ""}} {
		s := p.String()
		q, err := ParseConcrete(s)
		if err != nil || !slices.Equal(p, q) {
			t.Errorf("%v -> %s -> %v %v", p, s, q, err)
		}
	}
	for _, bad := range []string{"spec", ".a[]", ".a[-1]", ".a[x]", ".a[1"} {
		if _, err := ParseConcrete(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestHasPrefix(t *testing.T) {
	p := Path{"spec", "data", 0, "k"}
	for q, want := range map[string]bool{".": true, ".spec": true, ".spec.data[0]": true, ".spec.data[0].k": true, ".spec.data[1]": false, ".spec.dat": false, ".spec.data[0].k.x": false} {
		qp, err := ParseConcrete(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.HasPrefix(qp); got != want {
			t.Errorf("%s has prefix %s: %v", p, q, got)
		}
	}
	// Child copies: two children of one parent do not share storage.
	base := make(Path, 1, 4)
	base[0] = "a"
	x, y := base.Child("x"), base.Child("y")
	if x[1] != "x" || y[1] != "y" {
		t.Errorf("children share storage: %v %v", x, y)
	}
}

func TestWalk(t *testing.T) {
	a := jsonObj(t, `{"a":1,"b":{"c":[1,2],"d":"x"},"e":[1],"f":null}`)
	b := jsonObj(t, `{"a":1.0,"b":{"c":[1,3],"g":true},"e":[1,2],"f":{}}`)
	var got []string
	Walk(a, b, nil, func(p Path, x, y any, inA, inB bool) {
		got = append(got, fmt.Sprintf("%s %v %v %v %v", p, x, y, inA, inB))
	})
	want := []string{
		".b.c[1] 2 3 true true",
		".b.d x <nil> true false",
		".b.g <nil> true false true",
		".e [1] [1 2] true true",
		".f <nil> map[] true true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestEqual(t *testing.T) {
	if !Equal(int64(1), 1.0) || Equal("1", 1.0) || !Equal([]any{int64(2)}, []any{2.0}) {
		t.Error("equal")
	}
}

func TestPathsRoundTrip(t *testing.T) {
	for _, p := range []string{".spec.data[].remoteRef.nullBytePolicy", `.metadata.annotations["a.b/c"]`, `.["x-y"].z`, ".a[][].b"} {
		segs, err := ParsePath(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := FormatPath(segs); got != p {
			t.Errorf("round trip %s -> %s", p, got)
		}
	}
	if s, err := ParsePath(`.spec."odd-name"`); err != nil || s[1].Name != "odd-name" {
		t.Errorf("quoted field: %v %v", s, err)
	}
	for _, bad := range []string{"spec", ".", ".a[]", ".a[0].b", ".a | .b", `.a["x`} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestReach(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{"data": []any{
		map[string]any{"remoteRef": map[string]any{"key": "a"}},
		map[string]any{"remoteRef": map[string]any{"key": "b", "nullBytePolicy": "Fail"}},
		map[string]any{"secretKey": "c"},
	}}}
	segs, err := ParsePath(".spec.data[].remoteRef.nullBytePolicy")
	if err != nil {
		t.Fatal(err)
	}
	if p, s := Reach(obj, segs); p != 2 || s != 1 {
		t.Errorf("parents %d, set %d; want 2, 1", p, s)
	}
	segs, _ = ParsePath(".spec.target.deletionPolicy")
	if p, s := Reach(obj, segs); p != 0 || s != 0 {
		t.Errorf("absent parent: parents %d, set %d", p, s)
	}
}

func TestDiff(t *testing.T) {
	a := jsonObj(t, `{"a":1,"b":{"c":[1,2],"d":"x"},"f":null}`)
	b := jsonObj(t, `{"a":1.0,"b":{"c":[1,3],"g":true},"f":{}}`)
	var got []string
	for _, c := range Diff(a, b) {
		got = append(got, fmt.Sprintf("%s %s %v %v", c.Kind, c.Path, c.From, c.To))
	}
	want := []string{
		"changed .b.c[1] 2 3",
		"removed .b.d x <nil>",
		"added .b.g <nil> true",
		"changed .f <nil> map[]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
