package profiles_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// TestCompiledForms: every shipped YAML file has its compiled form beside
// it, byte for byte what the YAML gives today, and no compiled file lacks
// its YAML.
func TestCompiledForms(t *testing.T) {
	yamls, _ := filepath.Glob("*/*.yaml")
	bins, _ := filepath.Glob("*/*" + operators.CompiledExt)
	if len(yamls) == 0 {
		t.Fatal("no shipped YAML files")
	}
	fix := "regenerate with scripts/gen-profiles.sh (it compiles every operator's YAML, sources or not)"
	want := map[string]bool{}
	for _, y := range yamls {
		data, err := os.ReadFile(y)
		if err != nil {
			t.Fatal(err)
		}
		b, err := operators.CompileFile("profiles/"+y, data)
		if err != nil {
			t.Fatal(err)
		}
		bin := strings.TrimSuffix(y, ".yaml") + operators.CompiledExt
		want[bin] = true
		got, err := os.ReadFile(bin)
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is stale or missing: %s", bin, fix)
		}
	}
	for _, b := range bins {
		if !want[b] {
			t.Errorf("%s is the compiled form of no YAML file; remove it or %s", b, fix)
		}
	}
}

// TestCompiledLoadsAsYAML: the store built from the embedded compiled
// forms and the one built from the YAML files give the same releases and
// the same profiles, lines and parsed paths included.
func TestCompiledLoadsAsYAML(t *testing.T) {
	compiled, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	// This directory has both forms, and the loader prefers the YAML.
	yaml, err := operators.Load(operators.LoadOptions{Embedded: os.DirFS(".")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := compiled.Operators(), yaml.Operators(); !reflect.DeepEqual(got, want) {
		t.Fatalf("operators: compiled %v, YAML %v", got, want)
	}
	n := 0
	for _, op := range yaml.Operators() {
		cr, err := compiled.Releases(op)
		if err != nil {
			t.Fatal(err)
		}
		yr, err := yaml.Releases(op)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cr, yr) {
			t.Errorf("%s: releases differ", op)
		}
		if c, y := compiled.IndexSource(op), yaml.IndexSource(op); c != y {
			t.Errorf("%s: index source %q, YAML %q", op, c, y)
		}
		if c, y := compiled.Webhooks(op), yaml.Webhooks(op); !reflect.DeepEqual(c, y) {
			t.Errorf("%s: index webhooks %v, YAML %v", op, c, y)
		}
		cp, err := compiled.Profiles(op)
		if err != nil {
			t.Fatal(err)
		}
		yp, err := yaml.Profiles(op)
		if err != nil {
			t.Fatal(err)
		}
		if len(cp) != len(yp) {
			t.Fatalf("%s: %d compiled profiles, %d YAML", op, len(cp), len(yp))
		}
		for i := range yp {
			n++
			if err := operators.SameProfile(cp[i], yp[i]); err != nil {
				t.Errorf("%s: %s loads differently from its compiled form: %v", op, yp[i].File, err)
				continue
			}
			for _, r := range yp[i].Resources {
				for _, d := range r.Defaults {
					segs, err := d.Segs()
					if err != nil {
						t.Fatal(err)
					}
					if tree.FormatPath(segs) == "" {
						t.Fatalf("%s: %s has no parsed path", yp[i].File, d.Path)
					}
				}
			}
		}
	}
	t.Logf("%d profiles of %d operators compared", n, len(yaml.Operators()))
}
