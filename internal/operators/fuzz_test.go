package operators

import (
	"slices"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// FuzzParseProfile: the loader never panics, and whatever it accepts
// survives a marshal/parse round trip.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte(`apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: 1.0.0
resources:
  - group: acme.io
    version: v1
    kind: Thing
    maps: [.spec.m]
    defaults:
      - {path: ".spec.m[].x", type: integer, value: 1}
      - {path: .spec.o, type: object, nullable: true, value: {a: [1]}}
    mutations:
      - {path: '.spec.items[] | select(.a) | .b', value: x, when: '.spec.on'}
`))
	f.Add([]byte("apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: a\nversion: v1.0.0\nresources: []\n"))
	f.Add([]byte("resources: [{defaults: [{path: '.a[\"b\"]', value: 1}]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz.yaml", data)
		if err != nil {
			return
		}
		b, err := Marshal(p)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if _, err := ParseProfile("again.yaml", b); err != nil {
			t.Fatalf("our own rendering of an accepted profile does not parse: %v\n%s", err, b)
		}
	})
}

// FuzzCompileJQ: rule compilation never panics, paths included.
func FuzzCompileJQ(f *testing.F) {
	for _, s := range []string{".spec.data[].remoteRef.nullBytePolicy", `.spec.x[] | select(.name == "db") | .tier`, ".a[]?.b", "..", "path(.a)", `.["x"]`, "def f: .; f", ".a as $x | $x", `.spec.data[0]["a/b"].x`, `.["x-y"][2]`} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, expr string, asPath bool) {
		code, err := CompileJQ(expr, asPath)
		if err != nil {
			return
		}
		iter := code.Run(map[string]any{"spec": map[string]any{"data": []any{map[string]any{"a": 1}}}})
		for i := 0; i < 100; i++ {
			if _, ok := iter.Next(); !ok {
				break
			}
		}
		if _, err := tree.ParsePath(expr); err == nil {
			if _, err := CompileJQ(expr, true); err != nil {
				t.Fatalf("a default path %q is not a jq path expression: %v", expr, err)
			}
		}
		// A concrete path prints back to a path that parses to the same steps.
		if p, err := tree.ParseConcrete(expr); err == nil {
			q, err := tree.ParseConcrete(p.String())
			if err != nil || !slices.Equal(p, q) {
				t.Fatalf("%q -> %v -> %q -> %v %v", expr, p, p.String(), q, err)
			}
		}
	})
}
