package learn

import (
	"maps"
	"slices"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// observeAll is a builder that has seen every observation.
func observeAll(obs []Observation, conds []condition) *builder {
	b := newBuilder()
	b.conds = conds
	for i := range obs {
		b.observe(i, &obs[i])
	}
	return b
}

func (b *builder) observe(i int, o *Observation) {
	sent := cluster.Comparable(o.Sent)
	r0, r1 := cluster.Comparable(o.Runs[0]), cluster.Comparable(o.Runs[1])
	b.findings.serverOwned(o)
	seen := map[string]bool{}
	for run, r := range []map[string]any{r0, r1} {
		other := r1
		if run == 1 {
			other = r0
		}
		// A field null in the sent object and set by admission counts as
		// added, as a mutation fills it; a null that admission drops is no
		// change.
		for _, c := range tree.Diff(sent, r) {
			if c.Kind == tree.Removed && c.From == nil {
				continue
			}
			cp := c.Path.String()
			if seen[cp] {
				continue
			}
			seen[cp] = true
			xl, xList := c.From.([]any)
			yl, yList := c.To.([]any)
			w, inOther := c.Path.Lookup(other)
			switch {
			case c.Kind == tree.Removed && run == 0 && !inOther && zero(c.From):
				b.wrote(i, o, c.Path, "drop")
			case c.Kind == tree.Removed:
				b.findings.record(o, c.Path, ReasonDropped, c.From, nil)
			case c.Kind == tree.Added || c.From == nil:
				v1, ok := c.Path.Lookup(other)
				stable, unstable := split(c.To, v1, ok, nil)
				for _, rel := range unstable {
					p := append(c.Path[:len(c.Path):len(c.Path)], rel...)
					b.markUnstable(i, p)
					reason := ReasonRuns
					if o.Exists && !ok && run == 0 {
						reason = ReasonStored
					}
					x, _ := p.Lookup(r0)
					y, _ := p.Lookup(r1)
					b.findings.record(o, p, reason, x, y)
				}
				if stable != nil {
					b.addition(i, o, c.Path, stable)
				}
			case xList && yList:
				if e, ok := inserted(xl, yl); ok && inOther && jsonText(w) == jsonText(c.To) {
					b.insertion(i, o, c.Path, e)
					continue
				}
				b.findings.record(o, c.Path, ReasonList, len(xl), len(yl))
			case scalar(c.From) && scalar(c.To) && inOther && jsonText(w) == jsonText(c.To):
				b.wrote(i, o, c.Path, "to:"+jsonText(c.To))
			default:
				b.findings.record(o, c.Path, ReasonRewrite, c.From, c.To)
			}
		}
	}
}

func (b *builder) addition(i int, o *Observation, p tree.Path, v any) {
	if b.adds[i] == nil {
		b.adds[i] = map[string]any{}
	}
	b.adds[i][p.String()] = v
	gen := generalise(p)
	path := tree.FormatPath(gen)
	gk := o.APIVersion + " " + o.Kind + " " + path
	if b.groups[gk] == nil {
		b.groups[gk] = &group{apiVersion: o.APIVersion, kind: o.Kind, gen: gen, path: path}
	}
}

func (b *builder) markUnstable(i int, p tree.Path) {
	if b.unstable[i] == nil {
		b.unstable[i] = map[string]bool{}
	}
	b.unstable[i][p.String()] = true
}

// split keeps the part of v (from one run) that the other run has too
// (w, when ok): equal leaves, and maps split key by key. It returns the
// kept part (nil for none) and where the rest is, relative to v.
func split(v, w any, ok bool, rel tree.Path) (any, []tree.Path) {
	if !ok {
		return nil, []tree.Path{slices.Clone(rel)}
	}
	vm, isMap := v.(map[string]any)
	wm, isMap2 := w.(map[string]any)
	if !isMap || !isMap2 {
		if jsonText(v) == jsonText(w) {
			return v, nil
		}
		return nil, []tree.Path{slices.Clone(rel)}
	}
	keep := map[string]any{}
	var out []tree.Path
	for _, k := range slices.Sorted(maps.Keys(vm)) {
		x, ok := wm[k]
		kept, rest := split(vm[k], x, ok, append(rel, k))
		if kept != nil {
			keep[k] = kept
		}
		out = append(out, rest...)
	}
	for _, k := range slices.Sorted(maps.Keys(wm)) {
		if _, in := vm[k]; !in {
			out = append(out, rel.Child(k))
		}
	}
	if len(keep) == 0 && len(vm) > 0 {
		return nil, out
	}
	return keep, out
}

// generalise turns list indexes into [].
func generalise(p tree.Path) []tree.Seg {
	out := make([]tree.Seg, len(p))
	for i, s := range p {
		switch s := s.(type) {
		case int:
			out[i] = tree.Seg{Iter: true}
		case string:
			out[i] = tree.Seg{Name: s}
		}
	}
	return out
}

// insertion is an entry admission inserted into a list, and where.
type insertion struct {
	entry any
	at    string // operators.InsertFirst or InsertLast
}

func (b *builder) insertion(i int, o *Observation, p tree.Path, e insertion) {
	if b.inserts[i] == nil {
		b.inserts[i] = map[string]insertion{}
	}
	b.inserts[i][p.String()] = e
	b.group(b.listGroups, o, p)
}

// inserted says whether y is x with one entry more, first or last, the
// entries of x unchanged and in order.
func inserted(x, y []any) (insertion, bool) {
	if len(y) != len(x)+1 {
		return insertion{}, false
	}
	if jsonText(y[1:]) == jsonText(x) {
		return insertion{entry: y[0], at: "first"}, true
	}
	if jsonText(y[:len(x)]) == jsonText(x) {
		return insertion{entry: y[len(x)], at: "last"}, true
	}
	return insertion{}, false
}

// zero says whether v is a zero value a Go type with omitempty leaves out.
func zero(v any) bool {
	switch v {
	case false, "", int64(0), float64(0), 0:
		return true
	}
	return false
}

func scalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any, nil:
		return false
	}
	return true
}

func (b *builder) wrote(i int, o *Observation, p tree.Path, outcome string) {
	if b.written[i] == nil {
		b.written[i] = map[string]string{}
	}
	b.written[i][p.String()] = outcome
	b.group(b.writtenGroups, o, p)
}

func (b *builder) group(m map[string]*group, o *Observation, p tree.Path) {
	gen := generalise(p)
	path := tree.FormatPath(gen)
	if k := o.APIVersion + " " + o.Kind + " " + path; m[k] == nil {
		m[k] = &group{apiVersion: o.APIVersion, kind: o.Kind, gen: gen, path: path}
	}
}
