package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Decodes given one Counted limit share its count: splitting a source into
// files does not pass MaxDocuments. Skipped empty documents do not count.
func TestCountedLimitsAreShared(t *testing.T) {
	two := []byte("apiVersion: v1\nkind: A\n---\n---\napiVersion: v1\nkind: A\n---\n")
	lim := Limits{MaxDocuments: 3}.Counted()
	if _, err := DecodeWithLimits("a.yaml", two, lim); err != nil {
		t.Fatalf("two documents of three: %v", err)
	}
	_, err := DecodeWithLimits("b.yaml", two, lim)
	if err == nil || !strings.Contains(err.Error(), "b.yaml: document 2 (line 5): more than 3 documents in this file and those read before it") ||
		!strings.Contains(err.Error(), "CMP_DEFAULTS_MAX_DOCUMENTS") {
		t.Errorf("the fourth document: %v", err)
	}
	// JSON streams count too.
	lim = Limits{MaxDocuments: 1}.Counted()
	if _, err := DecodeWithLimits("a.json", []byte(`{"apiVersion":"v1","kind":"A"}`), lim); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeWithLimits("b.json", []byte(`{"apiVersion":"v1","kind":"A"}`), lim); err == nil || !strings.Contains(err.Error(), "more than 1 documents") {
		t.Errorf("JSON stream: %v", err)
	}
	// Without a count each stream has its own bound, as before.
	lim = Limits{MaxDocuments: 2}
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if _, err := DecodeWithLimits(name, two, lim); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestReaderCountsAllInputs(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for _, n := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: A\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	r := &Reader{MaxBytes: 1 << 20, Limits: Limits{MaxDocuments: 2}}
	if _, err := r.All(args[:2]); err != nil {
		t.Fatal(err)
	}
	// Each reading has its own count.
	if _, err := r.All(args[1:]); err != nil {
		t.Fatal(err)
	}
	if _, err := r.All(args); err == nil || !strings.Contains(err.Error(), "c.yaml: document 1 (line 1): more than 2 documents") {
		t.Errorf("three files: %v", err)
	}
}

// A file name is quoted when it could start a line of its own.
func TestNamesQuoted(t *testing.T) {
	var warnings []string
	lim := DefaultLimits
	lim.Warn = func(m string) { warnings = append(warnings, m) }
	name := "x\npanic: boom.yaml"
	_, err := DecodeWithLimits(name, []byte("apiVersion: v1\nkind: A\nk: 1\nk: 2\n---\nkind: [\n"), lim)
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], `"x\npanic: boom.yaml": document 1 (line 4): key "k" appears more than once`) {
		t.Errorf("warnings %q", warnings)
	}
	if err == nil || !strings.HasPrefix(err.Error(), `"x\npanic: boom.yaml": document 2 (line 6): malformed YAML`) {
		t.Errorf("error %v", err)
	}
	o := Object{Source: "a\nError: forged", Doc: 1}
	if got := o.Where(); got != `"a\nError: forged": document 1` {
		t.Errorf("Where %s", got)
	}
}
