package learn

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Variant is an object the learner makes to tell the sibling that decides
// a default from one that only coincides with it: a sent object with one
// sibling set to (or removed as in) another object's, everything else kept.
type Variant struct {
	ID     string
	Of     int // the observation it varies
	Object map[string]any
}

// maxVariants bounds the extra dry runs of one learning run.
const maxVariants = 200

// Variants lists, for every field added to some objects (or items) and not
// to others where more than one sibling could decide it and none has
// repeated evidence, the sent objects with that sibling swapped between a
// slot that got the field and one that did not. Dry-run too, they leave
// only the sibling that really decides with a consistent outcome.
func Variants(obs []Observation) []Variant {
	b := observeAll(obs, nil)
	var out []Variant
	seen := map[string]bool{}
	for _, g := range b.sortedGroups() {
		slots := b.slots(obs, g)
		if _, ok := discriminator(slots); ok {
			continue
		}
		fits, _ := deciders(slots)
		if len(fits) == 0 {
			continue
		}
		// One slot of each outcome: the first got the field, the other not
		// (or got another value).
		x := slices.IndexFunc(slots, func(s slot) bool { return s.outcome != "" })
		y := slices.IndexFunc(slots, func(s slot) bool { return s.outcome != slots[x].outcome })
		if x < 0 || y < 0 {
			continue
		}
		for _, sib := range fits {
			for _, pair := range [][2]slot{{slots[x], slots[y]}, {slots[y], slots[x]}} {
				to, from := pair[0], pair[1]
				obj := runtime.DeepCopyJSON(obs[to.obs].Sent)
				if !setSibling(obj, to.path[:len(to.path)-1], sib, from.parent) {
					continue
				}
				k := jsonText(obj)
				if seen[k] || len(out) >= maxVariants {
					continue
				}
				seen[k] = true
				where := tree.FormatPath(generalise(to.path[:len(to.path)-1])) + dotField(sib)
				out = append(out, Variant{ID: obs[to.obs].ID + " (varied " + where + ")", Of: to.obs, Object: obj})
			}
		}
	}
	return out
}

// setSibling sets sib in the map at parent (a concrete path in obj) to its
// value in from, or removes it when from lacks it.
func setSibling(obj map[string]any, parent tree.Path, sib string, from map[string]any) bool {
	x, ok := parent.Lookup(obj)
	m, isMap := x.(map[string]any)
	if !ok || !isMap {
		return false
	}
	v, has := from[sib]
	if !has {
		delete(m, sib)
		return true
	}
	if w, ok := v.(map[string]any); ok {
		m[sib] = runtime.DeepCopyJSON(w)
		return true
	}
	if l, ok := v.([]any); ok {
		m[sib] = runtime.DeepCopyJSONValue(l)
		return true
	}
	m[sib] = v
	return true
}
