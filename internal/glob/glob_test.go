package glob

import (
	"math/rand"
	"strings"
	"testing"

	gobwas "github.com/gobwas/glob"
)

// Every pattern matches what gobwas/glob (Argo CD's matcher) matches, on
// the texts a directory source matches: non-empty ASCII paths. (gobwas
// slips on the empty text and on multi-byte characters.)
func TestSameAsGobwas(t *testing.T) {
	patterns := []string{"*.yaml", "**", "*", "", "a?c", "[abc]*", "[!abc]*", "[a-c]x", "[!a-c]x", "{a,b/*}.yaml",
		"{*.yml,*.yaml}", "dir/**/x.json", `a\*b`, `\{a,b\}`, "{a,{b,c}d}", "*-prod.yaml", "[-a]x", "dir/*/x.json", "a*a", "{x,y}z"}
	texts := []string{"a.yaml", "b/c.yaml", "abc", "a/b/c", "xyz.yml", "a*b", "{a,b}", "cd", "bd", "y", "xy",
		"-x", "ax", "dx", "dir/x.json", "dir/a/b/x.json", "a\nb.yaml", "one-prod.yaml", "a", "xz"}
	rnd := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "/", ".", "*", "?", "[a-b]", "[!a]", "{a,b}", "{b,a*}", "**", "\\*"}
	for i := 0; i < 2000; i++ {
		var p strings.Builder
		for j := rnd.Intn(8); j >= 0; j-- {
			p.WriteString(alphabet[rnd.Intn(len(alphabet))])
		}
		patterns = append(patterns, p.String())
	}
	for i := 0; i < 200; i++ {
		var s strings.Builder
		for j := rnd.Intn(10) + 1; j > 0; j-- {
			s.WriteByte("ab/.*"[rnd.Intn(5)])
		}
		texts = append(texts, s.String())
	}
	for _, p := range patterns {
		want, werr := gobwas.Compile(p)
		got, err := Compile(p)
		if (werr == nil) != (err == nil) {
			t.Errorf("%q: gobwas error %v, ours %v", p, werr, err)
			continue
		}
		if err != nil {
			continue
		}
		for _, s := range texts {
			if w, g := want.Match(s), got.Match(s); w != g {
				t.Errorf("%q on %q: gobwas %v, ours %v", p, s, w, g)
			}
		}
	}
}

// The pattern that makes gobwas/glob backtrack for minutes is matched.
func TestBacktrackingPattern(t *testing.T) {
	g, err := Compile(strings.Repeat("*a", 31) + "*")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Match(strings.Repeat("a", 200) + ".yaml") {
		t.Error("no match")
	}
	if g.Match(strings.Repeat("a", 30) + ".yml") {
		t.Error("match with too few a")
	}
}

func TestLongPatternRefused(t *testing.T) {
	if _, err := Compile(strings.Repeat("a", MaxPatternBytes+1)); err == nil || !strings.Contains(err.Error(), "more than the 1024") {
		t.Errorf("got %v", err)
	}
}
