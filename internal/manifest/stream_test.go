package manifest

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
)

func utf16LE(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// Every document of a stream is read, whatever separates them: objects in
// = objects out, or the stream is refused. None is dropped silently.
func TestStreamShapesKeepEveryDocument(t *testing.T) {
	const a = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
	cases := []struct {
		name   string
		data   []byte
		want   int  // objects, when refused is false
		refuse bool // a document that is not an object
	}{
		{"document on its separator line", []byte(a + "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n"), 2, false},
		{"tagged separator", []byte(a + "--- !!map\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"), 2, false},
		{"list on the separator line", []byte(a + "--- [1]\n"), 0, true},
		{"CR line ends", []byte(strings.ReplaceAll(a+"---\n"+strings.Replace(a, "name: a", "name: b", 1), "\n", "\r")), 2, false},
		{"NEL line breaks", []byte(strings.ReplaceAll(a+"---\n"+strings.Replace(a, "name: a", "name: b", 1), "\n", "\u0085")), 2, false},
		{"U+2028 line breaks", []byte(strings.ReplaceAll(a+"---\n"+strings.Replace(a, "name: a", "name: b", 1), "\n", "\u2028")), 2, false},
		{"UTF-16 with two documents", utf16LE(a + "---\n" + strings.Replace(a, "name: a", "name: b", 1)), 2, false},
		{"plain", []byte(a + "---\n" + strings.Replace(a, "name: a", "name: b", 1)), 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Decode("in.yaml", tc.data)
			if tc.refuse {
				if err == nil {
					t.Fatalf("accepted as %d objects, want an error", len(objs))
				}
				return
			}
			if err != nil {
				// Refusing is allowed too, but never fewer objects.
				t.Logf("refused: %v", err)
				return
			}
			if len(objs) != tc.want {
				t.Fatalf("%d objects, want %d", len(objs), tc.want)
			}
			var buf bytes.Buffer
			n := 0
			if err := EachReader("stdin", bytes.NewReader(tc.data), 1<<20, DefaultLimits, func(Object) error { n++; return nil }); err != nil {
				t.Logf("stream refused: %v", err)
			} else if n != tc.want {
				t.Fatalf("streaming: %d objects, want %d", n, tc.want)
			}
			_ = buf
		})
	}
}

func TestExpandedSizeIsBounded(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  a0: &big \"" + big + "\"\n")
	for i := 1; i < 100; i++ {
		b.WriteString("  a" + string(rune('0'+i%10)) + strings.Repeat("x", i) + ": *big\n")
	}
	_, err := DecodeWithLimits("in.yaml", []byte(b.String()), Limits{MaxExpandedBytes: 32 << 20})
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Fatalf("want excessive aliasing, got %v", err)
	}
	if _, err := DecodeWithLimits("in.yaml", []byte(b.String()), Limits{MaxExpandedBytes: 200 << 20}); err != nil {
		t.Fatalf("under the limit: %v", err)
	}
}

func TestDuplicateKeysLastWinsWithWarning(t *testing.T) {
	var warnings []string
	lim := DefaultLimits
	lim.Warn = func(m string) { warnings = append(warnings, m) }
	data := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  x: \"1\"\n  x: \"3\"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nbase: &b {p: \"1\"}\ndata:\n  <<: *b\n  p: \"9\"\n"
	objs, err := DecodeWithLimits("f.yaml", []byte(data), lim)
	if err != nil || len(objs) != 3 {
		t.Fatalf("%v %v", objs, err)
	}
	if got := objs[1].Data["data"].(map[string]any)["x"]; got != "3" {
		t.Errorf("x = %v, want the last value 3", got)
	}
	if got := objs[2].Data["data"].(map[string]any)["p"]; got != "9" {
		t.Errorf("merge override: p = %v", got)
	}
	want := `f.yaml: document 2 (line 10): key "x" appears more than once in one mapping; the last one is used, as Argo CD does`
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

// Many duplicates of one kind: three are named, the rest counted.
func TestDuplicateKeyWarningsCollapse(t *testing.T) {
	var warnings []string
	lim := DefaultLimits
	lim.Warn = func(m string) { warnings = append(warnings, m) }
	data := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n" + strings.Repeat("  k: v\n", 11)
	if _, err := DecodeWithLimits("f.yaml", []byte(data), lim); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 4 || !strings.Contains(warnings[0], `(line 6): key "k"`) || warnings[3] != "f.yaml: document 1: ... and 7 more keys that appear more than once" {
		t.Errorf("warnings %q", warnings)
	}
}
