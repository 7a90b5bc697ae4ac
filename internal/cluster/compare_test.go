package cluster

import (
	"encoding/json"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
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
		{Kind: tree.Removed, Path: ".spec.extra", Value: true, Rule: ".spec.extra", Origin: "op@1"},
		{Kind: tree.Added, Path: ".spec.target", Cluster: map[string]any{"deletionPolicy": "Retain"}},
		{Kind: NotDefaulted, Path: `.metadata.annotations["a/b"]`, Value: "x", Rule: "m", Origin: "op@1"},
		{Kind: WrongDefault, Path: ".spec.data[0].nullBytePolicy", Value: "Fail", Cluster: "Ignore", Rule: ".spec.data[].nullBytePolicy", Origin: "op@1"},
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("got\n%s\nwant\n%s", gb, wb)
	}
}

// An object default is recorded with its rule's own value ({}), while the
// object as filled, and as the cluster stores it, also holds its child's
// default: that is a match, not a wrong default.
func TestCompareObjectDefault(t *testing.T) {
	filled := obj(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"a"},"spec":{"target":{"deletionPolicy":"Retain"}}}`)
	fills := map[string]FilledField{
		".spec.target":                {Value: map[string]any{}, Rule: ".spec.target", Origin: "op@1"},
		".spec.target.deletionPolicy": {Value: "Retain", Rule: ".spec.target.deletionPolicy", Origin: "op@1"},
	}
	if got := Compare(filled, filled, filled, fills); len(got) != 0 {
		t.Errorf("findings %+v, want none", got)
	}
}
