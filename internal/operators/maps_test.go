package operators

import (
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// TestProfileMaps pins the maps checks: a map must be followed by [] in
// some default path, written as tree.FormatPath writes it; listing it twice is
// allowed.
func TestProfileMaps(t *testing.T) {
	profile := func(maps, paths string) string {
		var b strings.Builder
		b.WriteString("apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: x\nversion: v1.0.0\nresources:\n  - group: x.io\n    version: v1\n    kind: X\n    maps:\n")
		for _, m := range strings.Fields(maps) {
			b.WriteString("      - '" + m + "'\n")
		}
		b.WriteString("    defaults:\n")
		for _, p := range strings.Fields(paths) {
			b.WriteString("      - path: '" + p + "'\n        value: 1\n")
		}
		return b.String()
	}
	for _, tc := range []struct{ maps, paths, err string }{
		{".spec.m", ".spec.m[].x", ""},
		{".spec.m .spec.m", ".spec.m[].x", ""},
		{".spec.l[].m", ".spec.l[].m[].x", ""},
		{".spec.m .spec.n", ".spec.m[].x", "p.yaml:6: maps: .spec.n is followed by [] in no default path"},
		{`.spec["m"]`, ".spec.m[].x", `p.yaml:6: maps: .spec["m"] is followed by [] in no default path`},
		{".spec.m", ".spec.m.x", "p.yaml:6: maps: .spec.m is followed by [] in no default path"},
		{".spec.m[", ".spec.m[].x", `p.yaml:6: maps: path ".spec.m[.x": unexpected '[' at offset 7 (default paths use .field, .["field"] and [] only)`},
	} {
		_, err := ParseProfile("p.yaml", []byte(profile(tc.maps, tc.paths)))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("maps %s, paths %s: got error %q, want %q", tc.maps, tc.paths, got, tc.err)
		}
	}
}

// TestDefaultSegs: the path parsed during validation is the one Segs
// gives, and a path changed afterwards is parsed again.
func TestDefaultSegs(t *testing.T) {
	p, err := ParseProfile("p.yaml", []byte("apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: x\nversion: v1.0.0\nresources:\n  - version: v1\n    kind: X\n    defaults:\n      - path: .spec.a[].b\n        value: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := &p.Resources[0].Defaults[0]
	if segs, err := d.Segs(); err != nil || tree.FormatPath(segs) != ".spec.a[].b" {
		t.Fatalf("Segs = %v, %v", segs, err)
	}
	d.Path = ".spec.c"
	if segs, err := d.Segs(); err != nil || tree.FormatPath(segs) != ".spec.c" {
		t.Fatalf("Segs after a change = %v, %v", segs, err)
	}
	d.Path = ".spec.c[]"
	if _, err := d.Segs(); err == nil {
		t.Fatal("Segs of a path ending in [] did not fail")
	}
}
