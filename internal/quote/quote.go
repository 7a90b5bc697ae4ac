// Package quote makes text from a repository safe to print in a message:
// a file name, a values key or a line a library logged can hold line
// breaks and terminal escapes, and printed raw they would start lines of
// their own on stderr (a forged "Error:" or "panic:").
package quote

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name is s as a message names it: as it is when every character is
// printable and it has no quote or backslash, else quoted with its control
// characters escaped (strconv.Quote), so that it is one line and reads
// unambiguously.
func Name(s string) string {
	if s == "" || !plain(s) {
		return strconv.Quote(s)
	}
	return s
}

func plain(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r == '"' || r == '\\' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Line is s with every character that is not printable (line breaks,
// terminal escapes, U+2028, invalid UTF-8) written as its Go escape, so
// that s prints as one line. Tabs stay.
func Line(s string) string {
	if oneLine(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\t' || unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

func oneLine(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (r != '\t' && !unicode.IsPrint(r)) {
			return false
		}
	}
	return true
}

// Bounds of an error as Error formats it: a library's error can quote a
// whole resource, and stderr must keep room for the warnings before it.
const (
	maxErrorLine  = 3 << 10
	maxErrorBytes = 6 << 10
)

// Error formats err for stderr: "Error: " and its first line, its further
// lines indented, so that a line of an error that quotes a repository (a
// file name, a key, a library's message) can never start a line of its
// own, a forged "Error:" or "panic:". Control characters are escaped;
// lines are cut at 3 KiB, the error at 6 KiB.
func Error(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 && b.Len() >= maxErrorBytes {
			fmt.Fprintf(&b, "  ... and %d more lines\n", len(lines)-i)
			break
		}
		prefix := "  "
		if i == 0 {
			prefix = "Error: "
		}
		b.WriteString(prefix + Line(Shorten(l, maxErrorLine)) + "\n")
	}
	return b.String()
}

// Shorten cuts s to about n bytes on a rune boundary, saying how much was
// cut.
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

// Text is s with the control characters of each line escaped.
func Text(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		lines[i] = Line(body)
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}
