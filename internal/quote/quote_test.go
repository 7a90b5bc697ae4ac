package quote

import (
	"strconv"
	"testing"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"app/values.yaml": "app/values.yaml",
		"a b.yaml":        "a b.yaml",
		"":                `""`,
		"x\npanic: boom":  `"x\npanic: boom"`,
		"say \"hi\".yaml": `"say \"hi\".yaml"`,
		"\x1b[31mred":     `"\x1b[31mred"`,
		"line\u2028sep":   `"line\u2028sep"`,
		"caf\xe9":         `"caf\xe9"`,
		"naïve.yaml":      "naïve.yaml",
		"tab\there":       `"tab\there"`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":         "plain text",
		"x\npanic: boom\r\n": `x\npanic: boom\r\n`,
		"\x1b]0;owned\a":     `\x1b]0;owned\a`,
		"tab\tstays":         "tab\tstays",
		"bad \xff byte":      `bad \xff byte`,
		"sep\u2028\u0085":    `sep\u2028\u0085`,
		"naïve":              "naïve",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %s, want %s", in, got, want)
		}
	}
}

// Whatever the text, Line and Name print as one line without control
// characters, and a quoted Name reads back as the text.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"a.yaml", "x\npanic: boom", "\x1b[2J", "\xff\xfe", "a\u2028b", `"q"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Name(s)} {
			for _, r := range out {
				if r != '\t' && (r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || (r >= 0x80 && r < 0xa0)) {
					t.Fatalf("%q gives %q, with %U", s, out, r)
				}
			}
		}
		if n := Name(s); n != s {
			if u, err := strconv.Unquote(n); err != nil || u != s {
				t.Fatalf("Name(%q) = %s does not unquote: %v", s, n, err)
			}
		}
	})
}
