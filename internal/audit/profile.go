package audit

import (
	"sort"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Defaults knows the CRD schema default paths of the selected profiles, to
// tell a field the profiles would fill (were its parent present) from one
// no admission default writes.
type Defaults struct {
	kinds map[string][]pattern // "apiVersion kind"
}

type pattern struct {
	segs []operators.Seg
	maps map[int]bool // indexes of [] steps that iterate map values
	rule string
	by   string
}

// NewDefaults indexes the default paths of resolved profiles.
func NewDefaults(res []*operators.Resolution) *Defaults {
	d := &Defaults{kinds: map[string][]pattern{}}
	for _, r := range res {
		if r == nil || r.Profile == nil {
			continue
		}
		by := fieldBy(r.Operator, r.Requested, r.Profile.Version)
		for _, rs := range r.Profile.Resources {
			maps := map[string]bool{}
			for _, m := range rs.Maps {
				maps[m] = true
			}
			key := rs.APIVersion() + " " + rs.Kind
			for _, df := range rs.Defaults {
				segs, err := operators.ParsePath(df.Path)
				if err != nil {
					continue // profiles are validated on load
				}
				p := pattern{segs: segs, maps: map[int]bool{}, rule: df.Path, by: by}
				for j, s := range segs {
					if s.Iter && maps[operators.FormatPath(segs[:j])] {
						p.maps[j] = true
					}
				}
				d.kinds[key] = append(d.kinds[key], p)
			}
			// A mutation names its field through a jq expression that
			// may pick items with select(...): its skeleton without the
			// filters covers every item it could apply to.
			for _, m := range rs.Mutations {
				sk, ok := skeleton(m.Path)
				if !ok {
					continue
				}
				segs, err := operators.ParsePath(sk)
				if err != nil {
					continue
				}
				d.kinds[key] = append(d.kinds[key], pattern{segs: segs, maps: map[int]bool{}, rule: m.Path, by: by})
			}
		}
	}
	return d
}

// skeleton drops the select(...) steps of a jq path expression:
// `.spec.items[] | select(.kind == "x") | .weight` becomes
// `.spec.items[].weight`.
func skeleton(expr string) (string, bool) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return "", false
	}
	var walk func(q *gojq.Query) (string, bool)
	walk = func(q *gojq.Query) (string, bool) {
		if q.Op == gojq.OpPipe {
			l, ok := walk(q.Left)
			if !ok {
				return "", false
			}
			r, ok := walk(q.Right)
			return l + r, ok
		}
		if q.Op != 0 || q.Term == nil {
			return "", false
		}
		if q.Term.Type == gojq.TermTypeFunc && q.Term.Func.Name == "select" {
			return "", true
		}
		return q.String(), true
	}
	s, ok := walk(q)
	return s, ok && s != ""
}

// Selection names a resolved release for people: "external-secrets@2.5.0
// (profile v2.5.0)".
func Selection(r *operators.Resolution) string {
	s := r.Operator + "@" + strings.TrimPrefix(r.Requested, "v")
	if r.Profile != nil {
		s += " (profile " + r.Profile.Version + ")"
	}
	return s
}

// fieldBy names where a filled field comes from, as explain does:
// "external-secrets@2.5.0, profile v2.5.0".
func fieldBy(op, release, profile string) string {
	return op + "@" + strings.TrimPrefix(release, "v") + ", profile " + profile
}

// Match finds the default rule whose path covers the concrete path p in an
// object of the given apiVersion and kind.
func (d *Defaults) Match(apiVersion, kind string, p []any) (rule, by string, ok bool) {
	if d == nil {
		return "", "", false
	}
	for _, pt := range d.kinds[apiVersion+" "+kind] {
		if pt.match(p) {
			return pt.rule, pt.by, true
		}
	}
	return "", "", false
}

func (pt pattern) match(p []any) bool {
	if len(p) != len(pt.segs) {
		return false
	}
	for i, s := range pt.segs {
		switch v := p[i].(type) {
		case int:
			if !s.Iter {
				return false
			}
		case string:
			switch {
			case !s.Iter:
				if v != s.Name {
					return false
				}
			case pt.maps[i]:
			default: // a list index written as a JSON pointer token
				if v == "" || strings.Trim(v, "0123456789") != "" {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MatchPattern finds the default rule with exactly the path segs (a jq
// path such as .spec.data[].remoteRef.nullBytePolicy).
func (d *Defaults) MatchPattern(apiVersion, kind string, segs []operators.Seg) (rule, by string, ok bool) {
	if d == nil {
		return "", "", false
	}
	want := operators.FormatPath(segs)
	for _, pt := range d.kinds[apiVersion+" "+kind] {
		if operators.FormatPath(pt.segs) == want {
			return pt.rule, pt.by, true
		}
	}
	return "", "", false
}
