package tree

import (
	"maps"
	"math"
	"reflect"
	"slices"
)

// Walk calls fn for every difference between the trees a and b, in path
// order: a key that only one side has (inA or inB false, the other value
// nil), or two values that are not Equal. Maps are compared key by key,
// lists item by item when their lengths agree and whole otherwise.
func Walk(a, b any, p Path, fn func(p Path, a, b any, inA, inB bool)) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Collect(maps.Keys(av))
		for k := range bv {
			if _, dup := av[k]; !dup {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			x, inA := av[k]
			y, inB := bv[k]
			if inA && inB {
				Walk(x, y, p.Child(k), fn)
			} else {
				fn(p.Child(k), x, y, inA, inB)
			}
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			break
		}
		for i := range av {
			Walk(av[i], bv[i], p.Child(i), fn)
		}
		return
	}
	if !Equal(a, b) {
		fn(p, a, b, true, true)
	}
}

// Equal compares JSON values; numbers compare by value (1 == 1.0).
func Equal(a, b any) bool {
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
			if !ok || !Equal(x, y) {
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
			if !Equal(av[i], bv[i]) {
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

// Kind says how a field differs between two trees.
type Kind string

// The kinds of Change; reports print them as they are.
const (
	Added   Kind = "added"   // only the second tree has the field
	Removed Kind = "removed" // only the first tree has it
	Changed Kind = "changed" // both have it, with values that are not Equal
)

// Change is one difference between two trees: From is nil when the field
// is Added, To when it is Removed.
type Change struct {
	Kind     Kind
	Path     Path
	From, To any
}

// Diff lists how b differs from a, in path order (Walk).
func Diff(a, b any) []Change {
	var out []Change
	Walk(a, b, nil, func(p Path, x, y any, inA, inB bool) {
		c := Change{Kind: Changed, Path: p, From: x, To: y}
		switch {
		case !inA:
			c.Kind = Added
		case !inB:
			c.Kind = Removed
		}
		out = append(out, c)
	})
	return out
}
