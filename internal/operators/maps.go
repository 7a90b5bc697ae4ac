package operators

import (
	"slices"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// MapPaths is a resource's maps list, parsed once, for asking whether a
// prefix of a default path is one of them without formatting the prefix.
// Entries stay in the order of the list.
type MapPaths []mapPath

type mapPath struct {
	segs []tree.Seg
	ok   bool
}

// ParseMaps parses maps; a path that does not parse, or is not written the
// way FormatPath writes it, matches no prefix (as a string comparison with
// FormatPath would not).
func ParseMaps(maps []string) MapPaths {
	out := make(MapPaths, len(maps))
	for i, m := range maps {
		segs, err := parseContainerPath(m)
		out[i] = mapPath{segs: segs, ok: err == nil && tree.FormatPath(segs) == m}
	}
	return out
}

// Has reports whether prefix is one of the maps.
func (m MapPaths) Has(prefix []tree.Seg) bool {
	for _, mp := range m {
		if mp.ok && slices.Equal(mp.segs, prefix) {
			return true
		}
	}
	return false
}

// mark sets used[i] for every entry i equal to prefix.
func (m MapPaths) mark(prefix []tree.Seg, used []bool) {
	for i, mp := range m {
		if mp.ok && slices.Equal(mp.segs, prefix) {
			used[i] = true
		}
	}
}

// parseContainerPath parses a path that may end in a field or in [].
func parseContainerPath(p string) ([]tree.Seg, error) {
	segs, err := tree.ParsePath(p + ".x")
	if err != nil {
		return nil, err
	}
	return segs[:len(segs)-1], nil
}
