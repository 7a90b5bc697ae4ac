package supervisor

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of what a worker may print on stderr, which Argo CD's cmp-server
// buffers and logs whole.
const (
	MaxLine  = 4 << 10  // bytes of one line
	MaxLines = 100      // lines
	MaxBytes = 64 << 10 // bytes of all lines
)

// Lines collects a stream as at most MaxLines printable lines of at most
// MaxLine bytes, and notices where a Go runtime crash report starts.
type Lines struct {
	kept    []string
	size    int
	dropped int
	crash   int // index in kept of the crash report's first line, -1 none
	seen    bool
}

// crashRe matches the first line of what the Go runtime prints when it
// aborts (panic, fatal error, signal).
var crashRe = regexp.MustCompile(`^(panic: |fatal error: |runtime: |SIG[A-Z]+: |unexpected fault address|goroutine \d+ \[)`)

// Read reads r to its end, never holding more than MaxLine bytes of a line.
func (l *Lines) Read(r io.Reader) {
	if !l.seen {
		l.crash, l.seen = -1, true
	}
	br := bufio.NewReaderSize(r, 16<<10)
	var cur []byte
	cut := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			room := MaxLine - len(cur)
			if len(chunk) > room {
				cut += len(chunk) - max(room, 0)
				chunk = chunk[:max(room, 0)]
			}
			cur = append(cur, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(cur) > 0 || cut > 0 {
			l.add(strings.TrimRight(string(cur), "\r\n"), cut)
		}
		cur, cut = cur[:0], 0
		if err != nil {
			return
		}
	}
}

func (l *Lines) add(s string, cut int) {
	if l.crash >= 0 {
		return // the rest of a crash report: goroutine dumps
	}
	if crashRe.MatchString(s) {
		l.crash = len(l.kept)
		l.kept = append(l.kept, Shorten(Printable(s), 200))
		return
	}
	s = Printable(s)
	if cut > 0 {
		s = fmt.Sprintf("%s... (%d more bytes cut)", s, cut)
	}
	if len(l.kept) >= MaxLines || l.size+len(s) > MaxBytes {
		l.dropped++
		return
	}
	l.kept = append(l.kept, s)
	l.size += len(s)
}

// Lines are the lines kept, with a last one counting those left out.
func (l *Lines) Lines() []string {
	out := l.kept
	if l.crash >= 0 {
		out = append(out[:l.crash:l.crash], l.kept[l.crash])
	}
	if l.dropped > 0 {
		out = append(out[:len(out):len(out)], fmt.Sprintf("... and %d more lines of messages, left out", l.dropped))
	}
	return out
}

// Before are the lines before a crash report (all when there is none).
func (l *Lines) Before() []string {
	if l.crash >= 0 {
		l2 := *l
		l2.kept, l2.crash = l.kept[:l.crash], -1
		return l2.Lines()
	}
	return l.Lines()
}

// Crash is the first line of a Go runtime crash report, or "".
func (l *Lines) Crash() string {
	if l.crash < 0 || !l.seen {
		return ""
	}
	return l.kept[l.crash]
}

// Printable replaces control characters (terminal escapes among them),
// except tabs, and invalid UTF-8 with U+FFFD.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if (r != '\t' && unicode.IsControl(r)) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if (r != '\t' && unicode.IsControl(r)) || r == '\u2028' || r == '\u2029' {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Shorten cuts s to about n bytes (on a rune boundary), saying how much
// was left out.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s... (%d more bytes cut)", s[:i], len(s)-i)
}
