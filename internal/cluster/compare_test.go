package cluster

import (
	"encoding/json"
	"testing"
)

func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCompare(t *testing.T) {
	// Written: one data item without nullBytePolicy. Filled with a wrong
	// value, the other default missing, and a field the cluster prunes.
	filled := obj(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"a","labels":{"l":"1"}},
		"spec":{"data":[{"nullBytePolicy":"Fail","key":"k"}],"extra":true,"n":1}}`)
	admitted := obj(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"a","uid":"u","labels":{"l":"1"}},
		"spec":{"data":[{"nullBytePolicy":"Fail","key":"k"}],"target":{"deletionPolicy":"Retain"},"n":1.0},"status":{"x":1}}`)
	admittedRaw := obj(t, `{"spec":{"data":[{"nullBytePolicy":"Ignore","key":"k"}],"target":{"deletionPolicy":"Retain"}}}`)
	fills := map[string]FilledField{
		".spec.data[0].nullBytePolicy": {Value: "Fail", Rule: ".spec.data[].nullBytePolicy", Origin: "op@1"},
		".spec.extra":                  {Value: true, Rule: ".spec.extra", Origin: "op@1"},
		`.metadata.annotations["a/b"]`: {Value: "x", Rule: "m", Origin: "op@1"},
	}
	got := Compare(filled, admitted, admittedRaw, fills)
	want := []Finding{
		{Kind: Removed, Path: ".spec.extra", Value: true, Rule: ".spec.extra", Origin: "op@1"},
		{Kind: Added, Path: ".spec.target", Cluster: map[string]any{"deletionPolicy": "Retain"}},
		{Kind: NotDefaulted, Path: `.metadata.annotations["a/b"]`, Value: "x", Rule: "m", Origin: "op@1"},
		{Kind: WrongDefault, Path: ".spec.data[0].nullBytePolicy", Value: "Fail", Cluster: "Ignore", Rule: ".spec.data[].nullBytePolicy", Origin: "op@1"},
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("got\n%s\nwant\n%s", gb, wb)
	}
}

func TestLookup(t *testing.T) {
	v := obj(t, `{"metadata":{"annotations":{"a/b.c":"x"}},"spec":{"l":[{"k":1},{"k":2}]}}`)
	for path, want := range map[string]any{
		`.metadata.annotations["a/b.c"]`: "x",
		".spec.l[1].k":                   2.0,
	} {
		if got, ok := lookup(v, path); !ok || got != want {
			t.Errorf("%s: got %v %v, want %v", path, got, ok, want)
		}
	}
	for _, path := range []string{".spec.l[2]", ".spec.m", ".spec.l.k", `["x"]`} {
		if _, ok := lookup(v, path); ok {
			t.Errorf("%s: found", path)
		}
	}
}

func TestEqual(t *testing.T) {
	if !equal(int64(1), 1.0) || equal("1", 1.0) || !equal([]any{int64(2)}, []any{2.0}) {
		t.Error("equal")
	}
}
