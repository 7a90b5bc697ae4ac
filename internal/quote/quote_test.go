package quote

import "testing"

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
