// Package tree is the library of paths into JSON-like objects and their
// comparison: the jq path subset of profile rules (Seg, ParsePath,
// FormatPath), concrete paths (Path, ParseConcrete, Lookup), where a rule
// could apply (Reach) and the one tree comparison (Walk, Equal). It knows
// nothing of profiles or Kubernetes.
package tree

import (
	"fmt"
	"strconv"
	"strings"
)

// Seg is one step of a default path: a property name, or Iter for "[]"
// (array items, or map values when the schema node is a map).
type Seg struct {
	Name string
	Iter bool
}

// step is one scanned step of a path: a name, an index or [].
type step struct {
	name  string
	index int
	kind  stepKind
}

type stepKind uint8

const (
	stepName stepKind = iota
	stepIndex
	stepIter
)

// scan splits a jq path into steps: a name, an index (when indexes is set)
// or []. It accepts .name, ."quoted", .["quoted"], ["quoted"], [] and [3];
// what a step may be is up to the caller. Steps are typed rather than
// boxed: profiles hold thousands of paths, parsed on every run.
func scan(p string, indexes bool) ([]step, error) {
	if !strings.HasPrefix(p, ".") {
		return nil, fmt.Errorf("path %q must start with '.'", p)
	}
	steps := make([]step, 0, strings.Count(p, ".")+strings.Count(p, "["))
	i := 0
	for i < len(p) {
		switch {
		case strings.HasPrefix(p[i:], "[]"):
			steps = append(steps, step{kind: stepIter})
			i += 2
		case strings.HasPrefix(p[i:], `["`) || strings.HasPrefix(p[i:], `.["`):
			if p[i] == '.' {
				i++
			}
			s, n, err := quoted(p[i+1:])
			if err != nil || !strings.HasPrefix(p[i+1+n:], "]") {
				return nil, fmt.Errorf("path %q: bad [\"...\"] at offset %d", p, i)
			}
			steps = append(steps, step{name: s})
			i += 1 + n + 1
		case strings.HasPrefix(p[i:], `."`):
			s, n, err := quoted(p[i+1:])
			if err != nil {
				return nil, fmt.Errorf("path %q: bad quoted name at offset %d", p, i)
			}
			steps = append(steps, step{name: s})
			i += 1 + n
		case p[i] == '.':
			j := i + 1
			for j < len(p) && isIdent(p[j], j == i+1) {
				j++
			}
			if j == i+1 {
				if p == "." {
					return nil, fmt.Errorf("path %q names the whole object; name a field", p)
				}
				return nil, fmt.Errorf("path %q: expected a field name at offset %d", p, i+1)
			}
			steps = append(steps, step{name: p[i+1 : j]})
			i = j
		case indexes && p[i] == '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("path %q: unterminated [ at offset %d", p, i)
			}
			n, err := strconv.Atoi(p[i+1 : i+j])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: bad index at offset %d", p, i)
			}
			steps = append(steps, step{index: n, kind: stepIndex})
			i += j + 1
		case indexes:
			return nil, fmt.Errorf("path %q: unexpected %q at offset %d (concrete paths use .field, [\"field\"] and [N] only)", p, p[i], i)
		default:
			return nil, fmt.Errorf("path %q: unexpected %q at offset %d (default paths use .field, .[\"field\"] and [] only)", p, p[i], i)
		}
	}
	return steps, nil
}

// ParsePath parses the jq path subset used by default rules:
// .name, ."quoted", ["quoted"] and [] (e.g. .spec.data[].remoteRef.nullBytePolicy).
func ParsePath(p string) ([]Seg, error) {
	steps, err := scan(p, false)
	if err != nil {
		return nil, err
	}
	segs := make([]Seg, len(steps))
	for i, s := range steps {
		segs[i] = Seg{Name: s.name, Iter: s.kind == stepIter}
	}
	if len(segs) == 0 || segs[len(segs)-1].Iter {
		return nil, fmt.Errorf("path %q must end in a field name", p)
	}
	return segs, nil
}

// ParseConcrete parses a concrete path as Path.String writes it:
// .spec.data[0]["a/b"].x; "." is the whole object.
func ParseConcrete(s string) (Path, error) {
	if s == "." {
		return Path{}, nil
	}
	steps, err := scan(s, true)
	if err != nil {
		return nil, err
	}
	path := make(Path, len(steps))
	for i, st := range steps {
		switch st.kind {
		case stepIter:
			return nil, fmt.Errorf("path %q: [] is not a concrete step; name an index", s)
		case stepIndex:
			path[i] = st.index
		default:
			path[i] = st.name
		}
	}
	return path, nil
}

func quoted(s string) (string, int, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", 0, fmt.Errorf("not quoted")
	}
	for j := 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] == '"' {
			v, err := strconv.Unquote(s[:j+1])
			return v, j + 1, err
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

func isIdent(c byte, first bool) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}

// Field renders one property step the way jq accepts it.
func Field(name string) string {
	ok := name != ""
	for i := 0; i < len(name); i++ {
		if !isIdent(name[i], i == 0) {
			ok = false
			break
		}
	}
	if ok {
		return "." + name
	}
	return "[" + strconv.Quote(name) + "]"
}

// FormatPath renders segments as a jq path expression.
func FormatPath(segs []Seg) string {
	var b strings.Builder
	for i, s := range segs {
		if s.Iter {
			b.WriteString("[]")
			continue
		}
		f := Field(s.Name)
		if i == 0 && f[0] == '[' {
			b.WriteByte('.')
		}
		b.WriteString(f)
	}
	return b.String()
}

// Path is a concrete path into an object: string keys and int list
// indexes, as jq's path() yields.
type Path []any

// Child is p with one more step, in a new slice.
func (p Path) Child(step any) Path { return append(p[:len(p):len(p)], step) }

// String renders p the way filled fields are reported:
// .spec.data[0].remoteRef.nullBytePolicy; "." for the whole object.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s := s.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		case string:
			f := Field(s)
			if i == 0 && f[0] == '[' {
				b.WriteByte('.')
			}
			b.WriteString(f)
		}
	}
	if b.Len() == 0 {
		return "."
	}
	return b.String()
}

// Lookup follows p into x and reports whether it exists; the value may be
// null.
func (p Path) Lookup(x any) (any, bool) {
	for _, s := range p {
		switch s := s.(type) {
		case string:
			m, ok := x.(map[string]any)
			if !ok {
				return nil, false
			}
			if x, ok = m[s]; !ok {
				return nil, false
			}
		case int:
			l, ok := x.([]any)
			if !ok || s < 0 || s >= len(l) {
				return nil, false
			}
			x = l[s]
		default:
			return nil, false
		}
	}
	return x, true
}

// HasPrefix reports whether p is q or lies below it.
func (p Path) HasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Reach counts where the default path segs could apply in obj: parents is
// how many parent objects of the field exist, set how many of them already
// hold it. A default whose parent is absent is added by nobody: admission
// defaults only inside objects that exist.
func Reach(obj any, segs []Seg) (parents, set int) {
	if len(segs) == 0 {
		return 0, 0
	}
	var walk func(x any, rest []Seg)
	walk = func(x any, rest []Seg) {
		if len(rest) == 1 {
			m, ok := x.(map[string]any)
			if !ok || rest[0].Iter {
				return
			}
			parents++
			if v, ok := m[rest[0].Name]; ok && v != nil {
				set++
			}
			return
		}
		switch v := x.(type) {
		case map[string]any:
			if rest[0].Iter {
				for _, e := range v {
					walk(e, rest[1:])
				}
			} else if c, ok := v[rest[0].Name]; ok {
				walk(c, rest[1:])
			}
		case []any:
			if rest[0].Iter {
				for _, e := range v {
					walk(e, rest[1:])
				}
			}
		}
	}
	walk(obj, segs)
	return parents, set
}
