package supervisor

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cmp-defaults/cmp-defaults/internal/quote"
)

// Bounds of what a worker may print on stderr, which Argo CD's cmp-server
// buffers and logs whole. The first lines (the first warnings) and the
// last ones (where the worker's Error: line is) are kept; what lies
// between is counted in one line.
const (
	MaxLine  = 4 << 10  // bytes of one line
	MaxLines = 100      // lines, the count of what was left out included
	MaxBytes = 16 << 10 // bytes of all lines

	headLines = 40
	headBytes = 6 << 10
	tailLines = MaxLines - headLines - 2         // room for the count and the supervisor's own line
	tailBytes = MaxBytes - headBytes - (1 << 10) // likewise
)

// line is a kept line and its place in the stream.
type line struct {
	n    int
	text string
}

// Lines collects a stream as printable lines within MaxLines and
// MaxBytes: the first ones, the last ones, and how many were left out
// between. It notes where the first line that looks like a Go runtime
// crash report is; whether it is one the caller decides from how the
// process ended (Crash, Before).
type Lines struct {
	head, tail []line
	headSize   int
	tailSize   int
	seen       int    // lines read
	crashAt    int    // place of the first crash-like line, -1 none
	crash      string // that line
	traced     bool   // a goroutine dump or runtime stack followed it
	started    bool
}

// crashRe matches the first line of what the Go runtime prints when it
// aborts (panic, fatal error, signal).
var crashRe = regexp.MustCompile(`^(panic: |fatal error: |runtime: |SIG[A-Z]+: |unexpected fault address|goroutine \d+ (gp=.*)?\[)`)

// traceRe matches a line of the Go runtime's dump after a crash.
var traceRe = regexp.MustCompile(`^(goroutine \d+ (gp=.*)?\[|runtime stack:)`)

// Read reads r to its end, never holding more than MaxLine bytes of a line.
func (l *Lines) Read(r io.Reader) {
	l.start()
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

func (l *Lines) start() {
	if !l.started {
		l.crashAt, l.started = -1, true
	}
}

func (l *Lines) add(s string, cut int) {
	n := l.seen
	l.seen++
	if l.crashAt < 0 && crashRe.MatchString(s) {
		l.crashAt, l.crash = n, quote.Shorten(Printable(s), 200)
	} else if l.crashAt >= 0 && traceRe.MatchString(s) {
		l.traced = true
	}
	s = Printable(s)
	if cut > 0 {
		s = fmt.Sprintf("%s... (%d more bytes cut)", s, cut)
	}
	if len(l.tail) == 0 && len(l.head) < headLines && l.headSize+len(s) <= headBytes {
		l.head = append(l.head, line{n, s})
		l.headSize += len(s)
		return
	}
	l.tail = append(l.tail, line{n, s})
	l.tailSize += len(s)
	for len(l.tail) > 1 && (len(l.tail) > tailLines || l.tailSize > tailBytes) {
		l.tailSize -= len(l.tail[0].text)
		l.tail = l.tail[1:]
	}
}

// Lines are the lines kept, with one counting those left out where they
// were.
func (l *Lines) Lines() []string { return l.upTo(l.seen) }

// Before are the lines before the first crash-like line (all when there
// is none): what the worker said before the runtime aborted.
func (l *Lines) Before() []string {
	if l.crashAt >= 0 {
		return l.upTo(l.crashAt)
	}
	return l.Lines()
}

// upTo lists the kept lines before place end, saying how many between
// were left out.
func (l *Lines) upTo(end int) []string {
	var out []string
	next := 0
	for _, ln := range append(l.head[:len(l.head):len(l.head)], l.tail...) {
		if ln.n >= end {
			break
		}
		if ln.n > next {
			out = append(out, fmt.Sprintf("... (%d lines of messages left out)", ln.n-next))
		}
		out = append(out, ln.text)
		next = ln.n + 1
	}
	if end > next {
		out = append(out, fmt.Sprintf("... (%d lines of messages left out)", end-next))
	}
	return out
}

// Crash is the first line that looks like a Go runtime crash report, or
// "". Only a process that did not exit normally crashed: a line of a run
// that exited on its own may quote anything.
func (l *Lines) Crash() string {
	if l.crashAt < 0 {
		return ""
	}
	return l.crash
}

// Traced says whether a goroutine dump or runtime stack followed the
// crash-like line, as the Go runtime prints when it aborts (exit code 2).
func (l *Lines) Traced() bool { return l.crashAt >= 0 && l.traced }

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
