package cluster

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Finding kinds.
const (
	// The cluster adds a field the filled object lacks: the profile misses a
	// default (or a webhook adds it).
	Added = "added"
	// The cluster drops a field of the filled object (not in its schema, or
	// a null it does not keep).
	Removed = "removed"
	// The cluster stores another value than the filled object has.
	Changed = "changed"
	// cmp-defaults filled a field the cluster's admission does not add to
	// the object as written.
	NotDefaulted = "filled-not-defaulted"
	// cmp-defaults filled a value other than the one the cluster's
	// admission adds to the object as written.
	WrongDefault = "filled-wrong-value"
)

// Finding is one field where the filled object and the cluster disagree.
type Finding struct {
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Value   any    `json:"value,omitempty"`   // in the filled object
	Cluster any    `json:"cluster,omitempty"` // what the cluster stores or defaults
	Rule    string `json:"rule,omitempty"`    // the profile rule that filled the field
	Origin  string `json:"origin,omitempty"`  // operator@release (profile version)
}

// FilledField is a field the fill set, with where its rule came from.
type FilledField struct {
	Value  any
	Rule   string
	Origin string
}

// Compare lists the findings for one object: filled is the object after
// fill, admitted what the cluster's admission makes of it; admittedRaw what
// the cluster makes of the object as written; fills the fields fill set, by
// concrete path. Metadata other than labels and annotations, and status, are
// not compared: the server owns them.
func Compare(filled, admitted, admittedRaw map[string]any, fills map[string]FilledField) []Finding {
	var out []Finding
	seen := map[string]bool{}
	walk(Comparable(filled), Comparable(admitted), "", func(p string, a, b any, inA, inB bool) {
		f := Finding{Path: p, Value: a, Cluster: b}
		switch {
		case !inA:
			f.Kind, f.Value = Added, nil
		case !inB:
			f.Kind, f.Cluster = Removed, nil
		default:
			f.Kind = Changed
		}
		if ff, ok := fills[p]; ok {
			f.Rule, f.Origin = ff.Rule, ff.Origin
		}
		seen[p] = true
		out = append(out, f)
	})
	raw := Comparable(admittedRaw)
	paths := make([]string, 0, len(fills))
	for p := range fills {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if seen[p] {
			continue
		}
		ff := fills[p]
		got, ok := lookup(raw, p)
		switch {
		case !ok:
			out = append(out, Finding{Kind: NotDefaulted, Path: p, Value: ff.Value, Rule: ff.Rule, Origin: ff.Origin})
		case !equal(got, ff.Value):
			out = append(out, Finding{Kind: WrongDefault, Path: p, Value: ff.Value, Cluster: got, Rule: ff.Rule, Origin: ff.Origin})
		}
	}
	return out
}

// Comparable keeps what a manifest states: everything but status, and of
// metadata only labels and annotations (empty ones count as absent).
func Comparable(obj map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range obj {
		switch k {
		case "status":
		case "metadata":
			md, _ := v.(map[string]any)
			keep := map[string]any{}
			for _, f := range []string{"labels", "annotations"} {
				if x, ok := md[f]; ok && x != nil {
					if m, ok := x.(map[string]any); ok && len(m) == 0 {
						continue
					}
					keep[f] = x
				}
			}
			out[k] = keep
		default:
			out[k] = v
		}
	}
	return out
}

// walk calls fn for every leaf difference between a and b. Lists are
// compared item by item when their lengths agree, else whole.
func walk(a, b any, path string, fn func(p string, a, b any, inA, inB bool)) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(av)+len(bv))
		for k := range av {
			keys = append(keys, k)
		}
		for k := range bv {
			if _, dup := av[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			f := operators.Field(k)
			if path == "" && f[0] == '[' {
				f = "." + f
			}
			p := path + f
			x, inA := av[k]
			y, inB := bv[k]
			if inA && inB {
				walk(x, y, p, fn)
			} else {
				fn(p, x, y, inA, inB)
			}
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			break
		}
		for i := range av {
			walk(av[i], bv[i], path+"["+strconv.Itoa(i)+"]", fn)
		}
		return
	}
	if !equal(a, b) {
		fn(path, a, b, true, true)
	}
}

// lookup follows a concrete path (.spec.data[0]["a/b"].x) into v.
func lookup(v any, path string) (any, bool) {
	segs, err := parseConcrete(path)
	if err != nil {
		return nil, false
	}
	for _, s := range segs {
		switch {
		case s.index >= 0:
			l, ok := v.([]any)
			if !ok || s.index >= len(l) {
				return nil, false
			}
			v = l[s.index]
		default:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[s.key]; !ok {
				return nil, false
			}
		}
	}
	return v, true
}

type cseg struct {
	key   string
	index int // -1 for a key
}

// parseConcrete parses the paths fill records: .a.b, ["quoted key"], [3].
func parseConcrete(p string) ([]cseg, error) {
	var out []cseg
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			if i+1 < len(p) && p[i+1] == '[' {
				i++
				continue
			}
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			out = append(out, cseg{key: p[i+1 : j], index: -1})
			i = j
		case '[':
			if i+1 < len(p) && p[i+1] == '"' {
				s, err := strconv.QuotedPrefix(p[i+1:])
				if err != nil {
					return nil, err
				}
				k, _ := strconv.Unquote(s)
				out = append(out, cseg{key: k, index: -1})
				i += 1 + len(s) + 1
				continue
			}
			j := i + 1
			for j < len(p) && p[j] != ']' {
				j++
			}
			n, err := strconv.Atoi(p[i+1 : j])
			if err != nil {
				return nil, fmt.Errorf("path %s: %v", p, err)
			}
			out = append(out, cseg{index: n})
			i = j + 1
		default:
			return nil, fmt.Errorf("path %s: unexpected %q", p, p[i])
		}
	}
	return out, nil
}

// equal compares JSON values; numbers compare by value (1 == 1.0).
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !equal(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !equal(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	case float32:
		return float64(x), true
	}
	return 0, false
}
