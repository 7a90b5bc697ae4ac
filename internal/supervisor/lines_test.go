package supervisor

import (
	"strings"
	"testing"
)

func TestLinesBoundAndClean(t *testing.T) {
	var l Lines
	in := "Warning: a\x1b[31mred\x07\n" + strings.Repeat("x", 3*MaxLine) + "\n" + strings.Repeat("w\n", 2*MaxLines)
	l.Read(strings.NewReader(in))
	got := l.Lines()
	if len(got) != MaxLines+1 {
		t.Fatalf("%d lines, want %d", len(got), MaxLines+1)
	}
	if strings.ContainsAny(got[0], "\x1b\x07") || !strings.Contains(got[0], "red") {
		t.Errorf("escapes kept: %q", got[0])
	}
	if len(got[1]) > MaxLine+100 || !strings.Contains(got[1], "more bytes cut") {
		t.Errorf("long line: %d bytes", len(got[1]))
	}
	if !strings.Contains(got[MaxLines], "more lines") {
		t.Errorf("last line %q", got[MaxLines])
	}
}

func TestLinesCrash(t *testing.T) {
	var l Lines
	l.Read(strings.NewReader("Warning: w\nfatal error: out of memory\n\ngoroutine 1 [running]:\nmain.main()\n"))
	if l.Crash() != "fatal error: out of memory" {
		t.Errorf("crash %q", l.Crash())
	}
	if b := l.Before(); len(b) != 1 || b[0] != "Warning: w" {
		t.Errorf("before %q", b)
	}
	var ok Lines
	ok.Read(strings.NewReader("Error: the runtime: is fine here\n"))
	if ok.Crash() != "" {
		t.Errorf("crash in %q", ok.Lines())
	}
}
