// Package warn holds the warnings of a run. A repository can make any
// number of them (a duplicate key in every document, a rewritten value in
// every object, a line Helm logs for every values key), and stderr is
// small: a List keeps the first few of each kind, each on one line, and
// counts the rest, so that the error that ends a failed run is never
// pushed out by warnings.
package warn

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cmp-defaults/cmp-defaults/internal/quote"
)

// Kind is a kind of warning, as the line counting those left out names it.
type Kind string

// Kinds of warnings, each kept up to PerKind times.
const (
	General       Kind = "warnings"
	DuplicateKeys Kind = "warnings about duplicate keys"
	Rewrites      Kind = "warnings about rewritten values"
	Logged        Kind = "messages logged by Helm or kustomize"
)

// Bounds of what a List keeps.
const (
	PerKind  = 10      // warnings of one kind
	MaxLine  = 1 << 10 // bytes of one warning; the rest is cut
	MaxBytes = 6 << 10 // bytes of all warnings kept
)

// List is a run's warnings: the first PerKind of each kind in the order
// they arose, one line each (control characters escaped), at most
// MaxBytes in all, and how many of each kind were left out. The zero
// value is an empty list; it is safe for concurrent use.
type List struct {
	mu    sync.Mutex
	kept  []entry
	size  int
	kinds map[Kind]*count
	order []Kind // kinds in the order they first arose
}

type entry struct {
	kind Kind
	msg  string
}

type count struct{ kept, left int }

// Add records warnings of kind k.
func (l *List) Add(k Kind, msgs ...string) {
	if len(msgs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range msgs {
		l.add(k, m)
	}
}

func (l *List) add(k Kind, m string) {
	c := l.kind(k)
	if c.kept >= PerKind || l.size >= MaxBytes {
		c.left++
		return
	}
	m = quote.Line(shorten(m, MaxLine))
	c.kept++
	l.size += len(m)
	l.kept = append(l.kept, entry{k, m})
}

// kind is the count of k, made when k first arises.
func (l *List) kind(k Kind) *count {
	c := l.kinds[k]
	if c == nil {
		if l.kinds == nil {
			l.kinds = map[Kind]*count{}
		}
		c = &count{}
		l.kinds[k] = c
		l.order = append(l.order, k)
	}
	return c
}

// Merge adds the warnings of o, those it left out counted as left out.
func (l *List) Merge(o *List) { l.merge(o, false) }

// MergeNew is Merge without the warnings l already keeps: what several
// parts of one run each said once is said once.
func (l *List) MergeNew(o *List) { l.merge(o, true) }

func (l *List) merge(o *List, unique bool) {
	if o == nil || o == l {
		return
	}
	o.mu.Lock()
	kept := append([]entry(nil), o.kept...)
	left := map[Kind]int{}
	order := append([]Kind(nil), o.order...)
	for k, c := range o.kinds {
		left[k] = c.left
	}
	o.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range kept {
		if !unique || !slices.Contains(l.kept, e) {
			l.add(e.kind, e.msg)
		}
	}
	for _, k := range order {
		l.kind(k).left += left[k]
	}
}

// Lines are the warnings kept, then one line per kind counting those left
// out: "... and 140 more warnings about duplicate keys".
func (l *List) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.kept)+len(l.order))
	for _, e := range l.kept {
		out = append(out, e.msg)
	}
	for _, k := range l.order {
		if n := l.kinds[k].left; n > 0 {
			out = append(out, fmt.Sprintf("... and %d more %s", n, k))
		}
	}
	return out
}

// Len is how many warnings were added, kept or not.
func (l *List) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.kinds {
		n += c.kept + c.left
	}
	return n
}

// shorten cuts s to about n bytes on a rune boundary, saying how much was
// cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xc0 == 0x80 {
		i--
	}
	return fmt.Sprintf("%s... (%d more bytes cut)", s[:i], len(s)-i)
}

// Write adds p as one message of kind Logged, quoted: the log package
// hands over each message in one call, so that a process's library
// logging (Helm's, kustomize's, slog's default handler) can be pointed at
// a List instead of stderr.
func (l *List) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.kind(Logged); c.kept >= PerKind || l.size >= MaxBytes {
		c.left++
		return len(p), nil
	}
	msg := strings.TrimRight(string(p[:min(len(p), MaxLine)]), "\n")
	if len(p) > MaxLine {
		msg += fmt.Sprintf("... (%d more bytes cut)", len(p)-MaxLine)
	}
	l.add(Logged, "logged while rendering: "+strconv.Quote(msg))
	return len(p), nil
}
