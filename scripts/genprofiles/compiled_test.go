package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCompiledForms: writing gives every YAML file its compiled form and
// removes orphans; checking passes then, and fails on a changed YAML file,
// a changed compiled file and an orphan.
func TestCompiledForms(t *testing.T) {
	dir := t.TempDir()
	op := filepath.Join(dir, "acme")
	if err := os.MkdirAll(op, 0o755); err != nil {
		t.Fatal(err)
	}
	profile := "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: acme\nversion: v1.0.0\nresources:\n" +
		"  - {group: acme.io, version: v1, kind: Thing, defaults: [{path: .spec.x, type: integer, value: 1}]}\n"
	index := "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorIndex\noperator: acme\nreleases: [{version: v1.0.0, profile: v1.0.0}]\n"
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(op, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("v1.0.0.yaml", profile)
	write("index.yaml", index)
	write("v0.1.0.bin", "left over")
	if bad, err := compiledForms(dir, false); err != nil || bad != 0 {
		t.Fatalf("write: %d %v", bad, err)
	}
	for _, f := range []string{"v1.0.0.bin", "index.bin"} {
		if _, err := os.Stat(filepath.Join(op, f)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(op, "v0.1.0.bin")); err == nil {
		t.Fatal("orphan compiled file kept")
	}
	if bad, err := compiledForms(dir, true); err != nil || bad != 0 {
		t.Fatalf("check after write: %d %v", bad, err)
	}
	write("v1.0.0.yaml", profile[:len(profile)-len("1}]}\n")]+"2}]}\n")
	if bad, _ := compiledForms(dir, true); bad != 1 {
		t.Fatalf("changed YAML: %d stale, want 1", bad)
	}
	write("v1.0.0.yaml", profile)
	write("index.bin", "x")
	write("v0.1.0.bin", "orphan")
	if bad, _ := compiledForms(dir, true); bad != 2 {
		t.Fatalf("changed compiled file and orphan: %d, want 2", bad)
	}
	write("v1.0.0.yaml", "kind: nonsense\n")
	if _, err := compiledForms(dir, true); err == nil {
		t.Fatal("invalid YAML profile: no error")
	}
}
