package manifest

// MapLeaves returns a copy of the JSON tree v, its maps and lists copied,
// with fn applied to every other value (strings, numbers, bools, null).
func MapLeaves(v any, fn func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = MapLeaves(e, fn)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = MapLeaves(e, fn)
		}
		return l
	}
	return fn(v)
}
