package cluster

import (
	"sort"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Finding kinds besides the differences between the filled object and
// what the cluster stores (tree.Added: the cluster adds a field the filled
// object lacks, so the profile misses a default or a webhook adds it;
// tree.Removed: the cluster drops a field, not in its schema or a null it
// does not keep; tree.Changed: it stores another value).
const (
	// cmp-defaults filled a field the cluster's admission does not add to
	// the object as written.
	NotDefaulted tree.Kind = "filled-not-defaulted"
	// cmp-defaults filled a value other than the one the cluster's
	// admission adds to the object as written.
	WrongDefault tree.Kind = "filled-wrong-value"
)

// Finding is one field where the filled object and the cluster disagree.
type Finding struct {
	Kind    tree.Kind `json:"kind"`
	Path    string    `json:"path"`
	Value   any       `json:"value,omitempty"`   // in the filled object
	Cluster any       `json:"cluster,omitempty"` // what the cluster stores or defaults
	Rule    string    `json:"rule,omitempty"`    // the profile rule that filled the field
	Origin  string    `json:"origin,omitempty"`  // operator@release (profile version)
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
	for _, c := range tree.Diff(Comparable(filled), Comparable(admitted)) {
		p := c.Path.String()
		f := Finding{Kind: c.Kind, Path: p, Value: c.From, Cluster: c.To}
		if ff, ok := fills[p]; ok {
			f.Rule, f.Origin = ff.Rule, ff.Origin
		}
		seen[p] = true
		out = append(out, f)
	}
	raw, mine := Comparable(admittedRaw), Comparable(filled)
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
		var got any
		at, err := tree.ParseConcrete(p)
		ok := err == nil
		if ok {
			got, ok = at.Lookup(raw)
			// An object default's record holds its rule's own value; the
			// object as filled also holds its children's defaults, and
			// that is what the cluster must store.
			if v, in := at.Lookup(mine); in {
				ff.Value = v
			}
		}
		switch {
		case !ok:
			out = append(out, Finding{Kind: NotDefaulted, Path: p, Value: ff.Value, Rule: ff.Rule, Origin: ff.Origin})
		case !tree.Equal(got, ff.Value):
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
