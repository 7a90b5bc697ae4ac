package catalog

import (
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Completion is what the shell is offered for an --operator value.
type Completion struct {
	Values []string
	// Releases: the values are NAME@VERSION, newest first, in that order.
	Releases bool
	// Partial: the values are NAME@, to be completed further (no space).
	Partial bool
}

// Complete offers "NAME@" for names, then "NAME@VERSION" for the checked
// releases of NAME, newest first; without withRelease, bare names. A
// comma-separated value completes its last item.
func Complete(st *operators.Store, toComplete string, withRelease bool) (*Completion, error) {
	prefix := ""
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		prefix, toComplete = toComplete[:i+1], toComplete[i+1:]
	}
	if name, _, ok := strings.Cut(toComplete, "@"); ok && withRelease {
		rels, err := st.Releases(name)
		if err != nil {
			return nil, err
		}
		c := &Completion{Releases: true}
		for i := len(rels) - 1; i >= 0; i-- {
			c.Values = append(c.Values, prefix+name+"@"+strings.TrimPrefix(rels[i].Version, "v"))
		}
		return c, nil
	}
	c := &Completion{Partial: withRelease}
	for _, n := range st.Operators() {
		if withRelease {
			c.Values = append(c.Values, prefix+n+"@")
		} else {
			c.Values = append(c.Values, n)
		}
	}
	return c, nil
}
