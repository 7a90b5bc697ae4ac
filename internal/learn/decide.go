package learn

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// slot is one place a rule of the group could fill: a parent that exists
// in a sent object and lacks the field.
type slot struct {
	obs     int
	path    tree.Path
	parent  map[string]any
	outcome string // JSON text of the value added, or "" for none
	value   any
	items   int // how many items the list it is in has (the group's one list), 0 for none
}

// slots lists every place the group's rule could fill in obs.
func (b *builder) slots(obs []Observation, g *group) []slot {
	var slots []slot
	for i := range obs {
		o := &obs[i]
		if o.APIVersion != g.apiVersion || o.Kind != g.kind {
			continue
		}
		for _, s := range candidates(cluster.Comparable(o.Sent), g.gen) {
			cp := s.path.String()
			if b.unstable[i][cp] {
				continue
			}
			s.obs = i
			if v, ok := b.adds[i][cp]; ok {
				s.value, s.outcome = v, jsonText(v)
			}
			slots = append(slots, s)
		}
	}
	return slots
}

// candidates lists the places gen could be filled in obj: every parent it
// reaches (list items for []) that lacks the last field or holds null.
func candidates(obj map[string]any, gen []tree.Seg) []slot {
	return walkSlots(obj, gen, false)
}

// walkSlots follows gen through obj (every item for []) to the parents of
// its last field and lists those where the field is set (set) or is not.
func walkSlots(obj map[string]any, gen []tree.Seg, set bool) []slot {
	var out []slot
	var rec func(x any, i int, p tree.Path, items int)
	rec = func(x any, i int, p tree.Path, items int) {
		if i == len(gen)-1 {
			m, ok := x.(map[string]any)
			if !ok {
				return
			}
			v, present := m[gen[i].Name]
			present = present && v != nil
			if present != set {
				return
			}
			out = append(out, slot{path: p.Child(gen[i].Name), parent: m, items: items, value: v})
			return
		}
		s := gen[i]
		if s.Iter {
			l, _ := x.([]any)
			for j, e := range l {
				rec(e, i+1, append(p, j), len(l))
			}
			return
		}
		m, ok := x.(map[string]any)
		if !ok || m[s.Name] == nil {
			return
		}
		rec(m[s.Name], i+1, append(p, s.Name), items)
	}
	rec(obj, 0, nil, 0)
	return out
}

func (b *builder) decide(obs []Observation, g *group) ([]Rule, *Finding) {
	slots := b.slots(obs, g)
	outcomes := map[string]int{}
	for _, s := range slots {
		outcomes[s.outcome]++
	}
	if len(slots) == 0 || (len(outcomes) == 1 && slots[0].outcome == "") {
		return nil, nil
	}
	rule := func(path, when string, match []slot) Rule {
		objs := map[int]bool{}
		for _, s := range match {
			objs[s.obs] = true
		}
		return Rule{APIVersion: g.apiVersion, Kind: g.kind, Path: path, When: when, Value: match[0].value, Fields: len(match), Objects: len(objs)}
	}
	copyFinding := func(sib string) *Finding {
		f := &Finding{APIVersion: g.apiVersion, Kind: g.kind, Path: g.path, Reason: ReasonCopy,
			Why:    "admission copies the value of the sibling " + dotField(sib) + " into it: it follows what each object says, and a mutation sets one fixed value: not learned",
			Ignore: ignoreRule(g.apiVersion, g.kind, g.path), Fix: "set it in Git to the value of " + dotField(sib)}
		for _, s := range slots {
			if !contains(f.Objects, obs[s.obs].ID) {
				f.Objects = append(f.Objects, obs[s.obs].ID)
			}
		}
		return f
	}
	if len(outcomes) == 1 && slots[0].outcome != "" {
		if sib, ok := copied(slots); ok {
			return nil, copyFinding(sib)
		}
		return []Rule{rule(g.path, "", slots)}, nil
	}
	if sib, ok := discriminator(slots); ok {
		rules := b.conditional(g, slots, sib, rule)
		// A value equal to the deciding sibling's, or to another sibling's
		// in every slot that got it, is a copy of it.
		var kept []Rule
		for _, r := range rules {
			if copiedIn(slots, r) {
				continue
			}
			if !strings.HasSuffix(r.When, " == "+jsonText(r.Value)) && !strings.Contains(r.Path, " == "+jsonText(r.Value)+")") {
				kept = append(kept, r)
			}
		}
		if len(kept) < len(rules) {
			return kept, copyFinding(sib)
		}
		return rules, nil
	}
	if c, ok := b.deciding(slots); ok {
		return conditioned(g, obs, slots, c, rule)
	}
	if _, _, ok := reference(obs, g, slots); ok {
		ps, _ := b.parts(obs, g, slots)
		var rules []Rule
		for _, p := range ps {
			rules = append(rules, rule(p.path, p.when, p.slots))
		}
		return rules, nil
	}
	rules, rest := b.byLength(g, slots, rule)
	if len(rules) > 0 && len(rest) == 0 {
		return rules, nil
	}
	if len(rules) > 0 {
		slots = rest
		outcomes = map[string]int{}
		for _, s := range slots {
			outcomes[s.outcome]++
		}
	}
	f := &Finding{APIVersion: g.apiVersion, Kind: g.kind, Path: g.path, Reason: ReasonObjects}
	var vals []string
	for v, n := range outcomes {
		if v == "" {
			v = "(nothing)"
		}
		vals = append(vals, fmt.Sprintf("%s in %d of %d", v, n, len(slots)))
	}
	sort.Strings(vals)
	f.Values = vals
	f.Why = "admission adds different values, or adds it to only some of the objects (or items) that lack it, and no sibling field's value explains which: not a default"
	objs := map[string]bool{}
	for _, s := range slots {
		objs[obs[s.obs].ID] = true
	}
	for id := range objs {
		f.Objects = append(f.Objects, id)
	}
	f.Ignore = ignoreRule(g.apiVersion, g.kind, g.path)
	return rules, f
}

// copiedIn says whether rule r's value, in the slots that got it, is a
// copy of a sibling's value.
func copiedIn(slots []slot, r Rule) bool {
	var got []slot
	for _, s := range slots {
		if s.outcome == jsonText(r.Value) {
			got = append(got, s)
		}
	}
	_, c := copied(got)
	return c
}

// copied finds a sibling whose value, in every slot, is the value added:
// a copy, not a default.
func copied(slots []slot) (string, bool) {
	if _, ok := slots[0].value.(string); !ok {
		return "", false
	}
next:
	for _, sib := range slices.Sorted(maps.Keys(slots[0].parent)) {
		for _, s := range slots {
			if v, ok := s.parent[sib]; !ok || jsonText(v) != s.outcome {
				continue next
			}
		}
		return sib, true
	}
	return "", false
}

// hasLeaf says whether v, or a value inside it, has the JSON text k (a
// string: a name the value copies; true or false is no copy).
func hasLeaf(v any, k string) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if hasLeaf(e, k) {
				return true
			}
		}
		return false
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return hasLeaf(e, k) })
	}
	return jsonText(v) == k
}

// byLength learns a field added to the items of a list according to how
// many items the list has (Knative names the only container
// user-container, several user-container-0, -1, ...), as rules with the
// condition (LIST | length) == N; for a length whose items differ, the
// sibling that decides among them (with evidence) adds its condition. It
// is tried when no sibling decides alone, for a field under one list. The
// slots of lengths nothing explains are returned, to be reported.
func (b *builder) byLength(g *group, slots []slot, rule func(path, when string, match []slot) Rule) ([]Rule, []slot) {
	iters, at := 0, 0
	for i, s := range g.gen {
		if s.Iter {
			iters, at = iters+1, i
		}
	}
	if iters != 1 {
		return nil, nil
	}
	list := tree.FormatPath(g.gen[:at])
	byLen := map[int][]slot{}
	for _, s := range slots {
		byLen[s.items] = append(byLen[s.items], s)
	}
	if len(byLen) < 2 {
		return nil, nil
	}
	// A format that fits every length whose items got values by their
	// place wins over one that fits some lengths only (where every item
	// lacked the field, the index and the position agree).
	common := map[string]int{}
	formatted := 0
	for _, group := range byLen {
		fs := templates(group)
		if len(fs) > 0 && len(group) > 1 {
			formatted++
		}
		for _, f := range fs {
			common[f]++
		}
	}
	pick := func(group []slot) (string, bool) {
		fs := templates(group)
		for _, f := range fs {
			if common[f] == formatted {
				return f, true
			}
		}
		if len(fs) == 0 {
			return "", false
		}
		return fs[0], true
	}
	var out []Rule
	var rest []slot
	for _, n := range slices.Sorted(maps.Keys(byLen)) {
		group := byLen[n]
		cond := fmt.Sprintf("(%s | length) == %d", list, n)
		outcomes := map[string]bool{}
		for _, s := range group {
			outcomes[s.outcome] = true
		}
		if len(outcomes) == 1 {
			if group[0].outcome == "" {
				continue
			}
			if _, copy := copied(group); copy || len(group) < 2 {
				rest = append(rest, group...)
				continue
			}
			out = append(out, rule(g.path, cond, group))
			continue
		}
		if f, ok := pick(group); ok && len(group) > 1 {
			r := rule(g.path, cond, group)
			r.Value, r.Format = nil, f
			out = append(out, r)
			continue
		}
		sib, ok := discriminator(group)
		if !ok {
			rest = append(rest, group...)
			continue
		}
		rules := b.conditional(g, group, sib, rule)
		for _, r := range rules {
			if copiedIn(group, r) {
				rest = append(rest, group...)
				rules = nil
				break
			}
		}
		for _, r := range rules {
			if r.When == "" {
				r.When = cond
			} else {
				r.When = cond + " and " + r.When
			}
			out = append(out, r)
		}
	}
	// Lengths that all got nothing need no rule; without any rule the
	// list's length decides nothing.
	if len(out) == 0 {
		return nil, nil
	}
	return mergeFormats(out, list, slices.Sorted(maps.Keys(byLen))), rest
}

// mergeFormats makes the format rules of the longest lengths seen, when
// two or more in a row have the same format and nothing else decides,
// one rule for every length from the shortest of them on.
func mergeFormats(rules []Rule, list string, lengths []int) []Rule {
	by := map[string]Rule{}
	for _, r := range rules {
		by[r.When] = r
	}
	cond := func(n int) string { return fmt.Sprintf("(%s | length) == %d", list, n) }
	last, ok := by[cond(lengths[len(lengths)-1])]
	if !ok || last.Format == "" {
		return rules
	}
	from := len(lengths) - 1
	for from > 0 {
		r, ok := by[cond(lengths[from-1])]
		if !ok || r.Format != last.Format || r.Path != last.Path {
			break
		}
		from--
	}
	if from == len(lengths)-1 {
		return rules
	}
	merged := last
	merged.When = fmt.Sprintf("(%s | length) >= %d", list, lengths[from])
	merged.Fields, merged.Objects = 0, 0
	var out []Rule
	for _, r := range rules {
		n := slices.IndexFunc(lengths[from:], func(n int) bool { return r.When == cond(n) })
		if n < 0 {
			out = append(out, r)
			continue
		}
		merged.Fields += r.Fields
		merged.Objects += r.Objects
	}
	return append(out, merged)
}
