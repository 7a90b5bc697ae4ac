package warn

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestListCapsEachKind(t *testing.T) {
	var l List
	l.Add(General, "profile newer than checked")
	for i := 0; i < 150; i++ {
		l.Add(DuplicateKeys, fmt.Sprintf("cm.yaml: document %d: key \"k\" appears more than once", i+1))
	}
	l.Add(General, "no --operator selected")
	l.Add(Logged, "warning: skipped value for x\npanic: boom: Not a table.")
	got := l.Lines()
	if len(got) != 1+PerKind+1+1+1 {
		t.Fatalf("%d lines: %q", len(got), got)
	}
	if got[0] != "profile newer than checked" || got[PerKind+1] != "no --operator selected" {
		t.Errorf("order lost: %q", got)
	}
	if last := got[len(got)-1]; last != "... and 140 more warnings about duplicate keys" {
		t.Errorf("count line %q", last)
	}
	for _, w := range got {
		if strings.ContainsAny(w, "\n\r") {
			t.Errorf("a warning spans lines: %q", w)
		}
	}
	if l.Len() != 153 {
		t.Errorf("Len %d, want 153", l.Len())
	}
}

func TestListBytes(t *testing.T) {
	var l List
	for k := 0; k < 20; k++ {
		l.Add(Kind(fmt.Sprintf("warnings of kind %d", k)), strings.Repeat("x", 5000))
	}
	size := 0
	for _, w := range l.Lines() {
		size += len(w) + len("Warning: \n")
	}
	if size > MaxBytes+2<<10 {
		t.Errorf("%d bytes of warnings", size)
	}
}

func TestMerge(t *testing.T) {
	var a, b List
	a.Add(General, "first")
	for i := 0; i < 15; i++ {
		b.Add(Rewrites, "rewrite")
	}
	a.Merge(&b)
	a.Add(Rewrites, "one more")
	got := a.Lines()
	want := 1 + PerKind + 1
	if len(got) != want || got[len(got)-1] != "... and 6 more warnings about rewritten values" {
		t.Errorf("%q", got)
	}
}

func TestWriteQuotes(t *testing.T) {
	var l List
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&l, "warning: skipped value for h.x%d\npanic: boom: Not a table.\n", i)
	}
	got := l.Lines()
	if len(got) != PerKind+1 {
		t.Fatalf("%d lines: %q", len(got), got)
	}
	if want := `logged while rendering: "warning: skipped value for h.x0\npanic: boom: Not a table."`; got[0] != want {
		t.Errorf("got %s, want %s", got[0], want)
	}
	if last := got[PerKind]; last != "... and 140 more messages logged by Helm or kustomize" {
		t.Errorf("count line %q", last)
	}
}

// MergeNew keeps one of each warning several parts of a run gave.
func TestMergeNew(t *testing.T) {
	var run, a, b List
	run.Add(General, "first")
	a.Add(General, "release x is newer than checked", "a's own")
	b.Add(General, "release x is newer than checked", "b's own")
	run.MergeNew(&a)
	run.MergeNew(&b)
	want := []string{"first", "release x is newer than checked", "a's own", "b's own"}
	if got := run.Lines(); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
