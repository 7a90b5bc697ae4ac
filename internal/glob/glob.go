// Package glob matches Argo CD's globs (github.com/gobwas/glob syntax,
// without separators: "*" and "**" match any text, "/" included; "?" one
// character; "[a-z]", "[!abc]" classes; "{a,b}" alternatives) in time
// linear in the text. gobwas/glob's own matcher backtracks: a 63-byte
// pattern such as "*a*a*a…*" against a long file name runs for minutes.
// Patterns are parsed by gobwas/glob's parser, so the same ones are
// accepted, and matched by a regular expression (RE2: no backtracking).
//
// gobwas/glob matches a pattern of the form text*text by prefix and
// suffix, which may overlap ("dir/*/x.yaml" matches "dir/x.yaml"); Argo
// CD users get that, so Match does too. Its other slips (empty "{,a}"
// alternatives, "?" before a multi-byte character) are not reproduced.
package glob

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gobwas/glob/syntax"
	"github.com/gobwas/glob/syntax/ast"
)

// MaxPatternBytes bounds a pattern: matching costs its length times the
// text's, for every file a directory source holds.
const MaxPatternBytes = 1024

// Glob is a compiled pattern.
type Glob struct {
	re               *regexp.Regexp
	prefix, suffix   string
	prefixSuffixOnly bool
}

// Compile parses pattern.
func Compile(pattern string) (*Glob, error) {
	if len(pattern) > MaxPatternBytes {
		return nil, fmt.Errorf("is %d bytes, more than the %d a pattern may have", len(pattern), MaxPatternBytes)
	}
	tree, err := syntax.Parse(pattern)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`\A(?s:`)
	if err := write(&b, tree); err != nil {
		return nil, err
	}
	b.WriteString(`)\z`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	g := &Glob{re: re}
	if c := tree.Children; len(c) == 3 && c[0].Kind == ast.KindText && c[2].Kind == ast.KindText &&
		(c[1].Kind == ast.KindAny || c[1].Kind == ast.KindSuper) {
		g.prefix, g.suffix, g.prefixSuffixOnly = c[0].Value.(ast.Text).Text, c[2].Value.(ast.Text).Text, true
	}
	return g, nil
}

// Match reports whether the whole of s matches.
func (g *Glob) Match(s string) bool {
	if g.prefixSuffixOnly {
		return strings.HasPrefix(s, g.prefix) && strings.HasSuffix(s, g.suffix)
	}
	return g.re.MatchString(s)
}

func write(b *strings.Builder, n *ast.Node) error {
	switch n.Kind {
	case ast.KindNothing:
	case ast.KindPattern:
		for _, c := range n.Children {
			if err := write(b, c); err != nil {
				return err
			}
		}
	case ast.KindAnyOf:
		b.WriteString("(?:")
		for i, c := range n.Children {
			if i > 0 {
				b.WriteByte('|')
			}
			if err := write(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(')')
	case ast.KindText:
		b.WriteString(regexp.QuoteMeta(n.Value.(ast.Text).Text))
	case ast.KindAny, ast.KindSuper:
		b.WriteString(".*")
	case ast.KindSingle:
		b.WriteByte('.')
	case ast.KindList:
		l := n.Value.(ast.List)
		b.WriteByte('[')
		if l.Not {
			b.WriteByte('^')
		}
		for _, r := range l.Chars {
			fmt.Fprintf(b, `\x{%x}`, r)
		}
		b.WriteByte(']')
	case ast.KindRange:
		r := n.Value.(ast.Range)
		not := ""
		if r.Not {
			not = "^"
		}
		fmt.Fprintf(b, `[%s\x{%x}-\x{%x}]`, not, r.Lo, r.Hi)
	default:
		return fmt.Errorf("unknown glob element %s", n.Kind)
	}
	return nil
}
