package supervisor

import (
	"fmt"
	"strings"
	"testing"
)

func TestLinesBoundAndClean(t *testing.T) {
	var l Lines
	in := "Warning: a\x1b[31mred\x07\n" + strings.Repeat("x", 3*MaxLine) + "\n" + strings.Repeat("w\n", 2*MaxLines)
	l.Read(strings.NewReader(in))
	got := l.Lines()
	if len(got) > MaxLines-1 {
		t.Fatalf("%d lines, want at most %d (one for the supervisor)", len(got), MaxLines-1)
	}
	if strings.ContainsAny(got[0], "\x1b\x07") || !strings.Contains(got[0], "red") {
		t.Errorf("escapes kept: %q", got[0])
	}
	if len(got[1]) > MaxLine+100 || !strings.Contains(got[1], "more bytes cut") {
		t.Errorf("long line: %d bytes", len(got[1]))
	}
	if n := strings.Count(strings.Join(got, "\n"), "lines of messages left out"); n != 1 {
		t.Errorf("%d counts of left-out lines, want 1:\n%s", n, strings.Join(got, "\n"))
	}
}

// The worker's last line, its Error:, survives any number of warnings
// before it, within 16 KiB in all.
func TestLinesKeepTheLastError(t *testing.T) {
	var b strings.Builder
	for i := range 150 {
		fmt.Fprintf(&b, "Warning: duplicate key %d: %s\n", i, strings.Repeat("k", 300))
	}
	b.WriteString("Error: the real cause\n")
	var l Lines
	l.Read(strings.NewReader(b.String()))
	got := l.Lines()
	size := 0
	for _, s := range got {
		size += len(s) + 1
	}
	if got[len(got)-1] != "Error: the real cause" {
		t.Errorf("last line %q", got[len(got)-1])
	}
	if !strings.HasPrefix(got[0], "Warning: duplicate key 0:") {
		t.Errorf("first line %q", got[0])
	}
	if size > MaxBytes-(1<<10) || len(got) > MaxLines-1 {
		t.Errorf("%d lines, %d bytes", len(got), size)
	}
}

func TestLinesCrash(t *testing.T) {
	var l Lines
	l.Read(strings.NewReader("Warning: w\nfatal error: out of memory\n\ngoroutine 1 gp=0xc000002380 m=4 mp=0xc000100008 [running]:\nmain.main()\n"))
	if l.Crash() != "fatal error: out of memory" || !l.Traced() {
		t.Errorf("crash %q, traced %v", l.Crash(), l.Traced())
	}
	if b := l.Before(); len(b) != 1 || b[0] != "Warning: w" {
		t.Errorf("before %q", b)
	}
	var ok Lines
	ok.Read(strings.NewReader("Error: the runtime: is fine here\n"))
	if ok.Crash() != "" {
		t.Errorf("crash in %q", ok.Lines())
	}
	// A line that only looks like a crash keeps every line after it.
	var quoted Lines
	quoted.Read(strings.NewReader("Warning: file a\npanic: no\nWarning: b\nError: c\n"))
	if got := strings.Join(quoted.Lines(), "|"); got != "Warning: file a|panic: no|Warning: b|Error: c" || quoted.Traced() {
		t.Errorf("lines %q", got)
	}
}
