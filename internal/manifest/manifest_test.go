package manifest

import (
	"bytes"
	"strings"
	"testing"
)

func TestRoundTripKeepsNumbersAndOrderIsStable(t *testing.T) {
	in := "kind: A\napiVersion: v1\nspec: {b: 3, a: 1.5, big: 1000000, s: \"010\", t: 'true'}\n"
	objs, err := Decode("in", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Encode(&out, objs, "yaml"); err != nil {
		t.Fatal(err)
	}
	want := "apiVersion: v1\nkind: A\nspec:\n  a: 1.5\n  b: 3\n  big: 1000000\n  s: \"010\"\n  t: \"true\"\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestDocumentsLinesListsAndJSON(t *testing.T) {
	in := "# leading comment\n---\napiVersion: v1\nkind: A\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: B, metadata: {name: b}}\n- {apiVersion: v1, kind: C, metadata: {name: c}}\n"
	objs, err := Decode("f.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Where()+" "+o.ID())
	}
	want := "f.yaml: document 1 (line 3) v1 A a|f.yaml: document 2 (line 8) v1 B b|f.yaml: document 2 (line 8) v1 C c"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %s", strings.Join(got, "|"))
	}
	objs, err = Decode("s.json", []byte(`{"apiVersion":"v1","kind":"A"}
{"apiVersion":"v1","kind":"B"}`))
	if err != nil || len(objs) != 2 || objs[1].Line != 2 {
		t.Fatalf("json stream: %v %v", objs, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"apiVersion: v1\nkind: A\n---\nkind: [\n", "document 2 (line 4): malformed YAML"},
		{"- a\n- b\n", "document is a list, not an object"},
		{"\"text\"\n", "document is a string"},
		{"metadata: {}\n", "no apiVersion or kind"},
		{"apiVersion: v1\nkind: List\nitems: [1]\n", "List item 0 is a number"},
		{`{"apiVersion": "v1", "kind": `, "malformed JSON"},
		{"apiVersion: v1\nkind: A\nx: " + strings.Repeat("[", 150) + strings.Repeat("]", 150) + "\n", "nesting deeper than 100 levels"},
		{"a: &a [1,2]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n", "excessive aliasing"},
	} {
		_, err := Decode("x", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
	_, err := DecodeWithLimits("x", []byte("apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: A\n"), Limits{MaxDocuments: 1})
	if err == nil || !strings.Contains(err.Error(), "more than 1 documents") {
		t.Errorf("document limit: %v", err)
	}
}
