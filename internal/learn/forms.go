package learn

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// What the plain rule (set an absent field to one value) cannot say, and
// the forms that say it: an entry admission inserts into a list the object
// states, a value that follows the item's place in its list, a condition
// on the item another list names (a volume mount's volume), a zero value
// admission drops; and a value admission replaces where it is written,
// learned as data only (a Rewrite: never filled).

// setAt lists the places gen is set in obj (the other side of
// candidates): value is what the object states there.
func setAt(obj map[string]any, gen []tree.Seg) []slot {
	return walkSlots(obj, gen, true)
}

// part is one rule of a field whose outcome a condition decides: its
// path and when, and the slots it covers.
type part struct {
	path, when string
	slots      []slot
}

// parts finds what decides the outcome of slots: nothing (one outcome),
// a sibling of the field (its value, or an identifying one's presence),
// or the item another list names (a mount's volume: which of its fields
// it sets). One part per deciding value whose slots got something.
func (b *builder) parts(obs []Observation, g *group, slots []slot) ([]part, bool) {
	outcomes := map[string]bool{}
	for _, s := range slots {
		outcomes[s.outcome] = true
	}
	if len(outcomes) == 1 {
		if slots[0].outcome == "" {
			return nil, true
		}
		return []part{{path: g.path, slots: slots}}, true
	}
	parent := g.gen[:len(g.gen)-1]
	field := dotField(g.gen[len(g.gen)-1].Name)
	if sib, ok := discriminator(slots); ok {
		byVal := map[string][]slot{}
		for _, s := range slots {
			k := condKey(sib, s.parent[sib])
			byVal[k] = append(byVal[k], s)
		}
		var out []part
		for _, k := range slices.Sorted(maps.Keys(byVal)) {
			match := byVal[k]
			if match[0].outcome == "" {
				continue
			}
			cond := siblingCond(sib, k)
			switch {
			case hasIter(parent):
				out = append(out, part{path: tree.FormatPath(parent) + " | select(" + cond + ") | " + field, slots: match})
			case len(parent) == 0:
				out = append(out, part{path: g.path, when: cond, slots: match})
			default:
				out = append(out, part{path: g.path, when: tree.FormatPath(parent) + cond, slots: match})
			}
		}
		return out, true
	}
	if list, shapes, ok := reference(obs, g, slots); ok {
		byShape := map[string][]slot{}
		for i, s := range slots {
			byShape[shapes[i]] = append(byShape[shapes[i]], s)
		}
		var out []part
		for _, k := range slices.Sorted(maps.Keys(byShape)) {
			match := byShape[k]
			if match[0].outcome == "" || k == "" {
				continue
			}
			cond := ".name == $n"
			for _, f := range strings.Split(k, ",") {
				if f != "" {
					cond += " and " + dotField(f) + " != null"
				}
			}
			path := ". as $o | " + tree.FormatPath(parent) + " | select(.name as $n | any($o" + tree.FormatPath(list) + "?; " + cond + ")) | " + field
			out = append(out, part{path: path, slots: match})
		}
		return out, true
	}
	return nil, false
}

// reference finds another list of the object whose items are named by
// the items the slots are in (a volume mount names a volume): exactly one
// item of that list per slot, and the fields that item sets (its shape:
// a volume's source) decide every slot's outcome, with at least two
// outcomes. It returns that list's path and each slot's shape.
func reference(obs []Observation, g *group, slots []slot) ([]tree.Seg, []string, bool) {
	if len(g.gen) < 2 || !g.gen[len(g.gen)-2].Iter {
		return nil, nil, false
	}
	own := tree.FormatPath(g.gen[:len(g.gen)-1])
	// named[list path] per slot: the shapes of the items with its name.
	named := map[string][][]string{}
	lists := map[string][]tree.Seg{}
	for i, s := range slots {
		name, ok := s.parent["name"].(string)
		if !ok {
			return nil, nil, false
		}
		walkItems(cluster.Comparable(obs[s.obs].Sent), nil, func(gen []tree.Seg, item map[string]any) {
			l := tree.FormatPath(gen)
			if l == own || item["name"] != name {
				return
			}
			if named[l] == nil {
				named[l] = make([][]string, len(slots))
				lists[l] = slices.Clone(gen)
			}
			named[l][i] = append(named[l][i], shape(item))
		})
	}
next:
	for _, l := range slices.Sorted(maps.Keys(named)) {
		shapes := make([]string, len(slots))
		outcome := map[string]string{}
		distinct := map[string]bool{}
		for i, s := range slots {
			if len(named[l][i]) != 1 {
				continue next
			}
			k := named[l][i][0]
			if o, seen := outcome[k]; seen && o != s.outcome {
				continue next
			}
			outcome[k] = s.outcome
			distinct[s.outcome] = true
			shapes[i] = k
		}
		if len(distinct) > 1 {
			return lists[l], shapes, true
		}
	}
	return nil, nil, false
}

// shape names the fields an item sets besides its name, sorted.
func shape(item map[string]any) string {
	var fs []string
	for _, k := range slices.Sorted(maps.Keys(item)) {
		if k != "name" && item[k] != nil {
			fs = append(fs, k)
		}
	}
	return strings.Join(fs, ",")
}

// walkItems calls fn for every map that is an item of a list in x, with
// the generalised path of the list's items.
func walkItems(x any, gen []tree.Seg, fn func(gen []tree.Seg, item map[string]any)) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			walkItems(x[k], append(gen[:len(gen):len(gen)], tree.Seg{Name: k}), fn)
		}
	case []any:
		g := append(gen[:len(gen):len(gen)], tree.Seg{Iter: true})
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				fn(g, m)
			}
			walkItems(e, g, fn)
		}
	}
}

// decideInsert learns an entry admission inserts into a list the object
// states: the same entry at the same end of every list that lacks an
// entry with the same value of one of its fields (the key, found by the
// lists that had one and got nothing), under the condition that decides
// the rest (parts).
func (b *builder) decideInsert(obs []Observation, g *group) ([]Rule, *Finding) {
	var slots []slot
	var seen insertion
	entries := map[string]bool{}
	for i := range obs {
		o := &obs[i]
		if o.APIVersion != g.apiVersion || o.Kind != g.kind {
			continue
		}
		for _, s := range setAt(cluster.Comparable(o.Sent), g.gen) {
			if _, ok := s.value.([]any); !ok || b.unstable[i][s.path.String()] {
				continue
			}
			s.obs = i
			if e, ok := b.inserts[i][s.path.String()]; ok {
				s.outcome = jsonText(e.entry) + " " + e.at
				entries[s.outcome] = true
				seen = e
			}
			slots = append(slots, s)
		}
	}
	fail := func(why string) *Finding {
		f := &Finding{APIVersion: g.apiVersion, Kind: g.kind, Path: g.path, Reason: ReasonList, Why: why, Ignore: ignoreRule(g.apiVersion, g.kind, g.path)}
		for _, s := range slots {
			if id := obs[s.obs].ID; !contains(f.Objects, id) {
				f.Objects = append(f.Objects, id)
			}
		}
		slices.Sort(f.Objects)
		return f
	}
	entry, isMap := seen.entry.(map[string]any)
	if len(entries) != 1 || !isMap {
		return nil, fail("admission inserts different entries (or entries that are no objects) into lists the objects state: not a default")
	}
	// The key: a field of the entry that no list that got it has already
	// with that value; of those, the one that explains most lists that got
	// nothing (sorted by name on a tie).
	has := func(s slot, k string) bool {
		return slices.ContainsFunc(s.value.([]any), func(e any) bool {
			m, ok := e.(map[string]any)
			return ok && jsonText(m[k]) == jsonText(entry[k])
		})
	}
	key, explains := "", -1
	for _, k := range slices.Sorted(maps.Keys(entry)) {
		n := 0
		for _, s := range slots {
			if has(s, k) {
				if s.outcome != "" {
					n = -1
					break
				}
				n++
			}
		}
		if n > explains {
			key, explains = k, n
		}
	}
	if key == "" || explains <= 0 {
		return nil, fail("admission inserts an entry into lists the objects state, and no list that already had one of its fields' values was seen: which field tells that the entry is there is unknown (vary it)")
	}
	var rest []slot
	for _, s := range slots {
		if !has(s, key) {
			rest = append(rest, s)
		}
	}
	ps, ok := b.parts(obs, &group{apiVersion: g.apiVersion, kind: g.kind, gen: g.gen, path: g.path}, rest)
	if !ok {
		return nil, fail("admission inserts an entry into some lists that lack it and not into others, and no field decides which: not a default")
	}
	var out []Rule
	for _, p := range ps {
		r := newRule(g, p.path, p.when, p.slots)
		r.Value, r.Insert, r.Key = entry, seen.at, key
		out = append(out, r)
	}
	return out, nil
}

// decideWritten learns what admission does to a value the object states:
// a zero value it drops becomes a drop rule (a change of representation:
// absent reads the same); a value it replaces by another becomes a
// Rewrite (data, never filled). Per value written, under the condition
// that decides it (parts); what nothing decides is reported.
func (b *builder) decideWritten(obs []Observation, g *group) ([]Rule, []Rewrite, []*Finding) {
	byValue := map[string][]slot{}
	changed := map[string]bool{}
	for i := range obs {
		o := &obs[i]
		if o.APIVersion != g.apiVersion || o.Kind != g.kind {
			continue
		}
		for _, s := range setAt(cluster.Comparable(o.Sent), g.gen) {
			if !scalar(s.value) || b.unstable[i][s.path.String()] {
				continue
			}
			s.obs = i
			s.outcome = b.written[i][s.path.String()]
			k := jsonText(s.value)
			byValue[k] = append(byValue[k], s)
			changed[k] = changed[k] || s.outcome != ""
		}
	}
	var rules []Rule
	var rewrites []Rewrite
	var fs []*Finding
	for _, k := range slices.Sorted(maps.Keys(byValue)) {
		if !changed[k] {
			continue
		}
		slots := byValue[k]
		ps, ok := b.parts(obs, g, slots)
		if !ok {
			ps, ok = b.decidedParts(g, slots)
		}
		if !ok {
			f := &Finding{APIVersion: g.apiVersion, Kind: g.kind, Path: g.path, Reason: ReasonRewrite,
				Why: fmt.Sprintf("admission drops or replaces the value %s written here in some objects and not in others, and no field decides which: not learned", k),
				Fix: "write the value the cluster stores in Git", Ignore: ignoreRule(g.apiVersion, g.kind, g.path)}
			for _, s := range slots {
				if id := obs[s.obs].ID; !contains(f.Objects, id) {
					f.Objects = append(f.Objects, id)
				}
				if v := k + " -> " + strings.TrimPrefix(s.outcome, "to:"); s.outcome != "" && !contains(f.Values, v) && len(f.Values) < 3 {
					f.Values = append(f.Values, v)
				}
			}
			fs = append(fs, f)
			continue
		}
		for _, p := range ps {
			r := newRule(g, p.path, p.when, p.slots)
			if p.slots[0].outcome == "drop" {
				r.Value, r.Drop = p.slots[0].value, true
				rules = append(rules, r)
				continue
			}
			var to any
			if err := utiljson.Unmarshal([]byte(strings.TrimPrefix(p.slots[0].outcome, "to:")), &to); err != nil {
				continue
			}
			rewrites = append(rewrites, Rewrite{APIVersion: g.apiVersion, Kind: g.kind, Path: r.Path, When: r.When, From: p.slots[0].value, To: to, Fields: r.Fields, Objects: r.Objects})
		}
	}
	return rules, rewrites, fs
}

// decidedParts splits the slots of a written value by a condition of the
// variations that decides what admission does to every one of them: a
// field away from it, which no sibling shows (OpenKruise before v1.4
// resets a written rollingUpdate only where updateStrategy.type is not
// written). Each rewrite needs two fields that show it, as a rule does.
// Not for a drop: a drop is a mutation, whose condition is read on the
// object being filled, not as written.
func (b *builder) decidedParts(g *group, slots []slot) ([]part, bool) {
	c, ok := b.decides(slots, true)
	if !ok {
		return nil, false
	}
	byVal := map[string][]slot{}
	for _, s := range slots {
		byVal[c.values[s.obs]] = append(byVal[c.values[s.obs]], s)
	}
	var out []part
	for _, k := range slices.Sorted(maps.Keys(byVal)) {
		match := byVal[k]
		switch match[0].outcome {
		case "":
		case "drop":
			return nil, false
		default:
			if len(match) < 2 {
				return nil, false
			}
			out = append(out, part{path: g.path, when: "(" + c.expr + ") == " + k, slots: match})
		}
	}
	return out, true
}

// newRule is a rule of group g over the slots it covers.
func newRule(g *group, path, when string, match []slot) Rule {
	objs := map[int]bool{}
	for _, s := range match {
		objs[s.obs] = true
	}
	return Rule{APIVersion: g.apiVersion, Kind: g.kind, Path: path, When: when, Value: match[0].value, Fields: len(match), Objects: len(objs)}
}

// templates lists the formats of string values that follow the item's
// place in its list, the same in every slot: constant text around the
// item's index ({index}) or its position among the items of its list that
// got the field ({n}). The one by index comes first; where every item
// lacked the field, both fit.
func templates(slots []slot) []string {
	var out []string
	for _, ph := range []string{"{index}", "{n}"} {
		format := ""
		pos := map[string]int{}
		ok := true
		for _, s := range slots {
			v, isStr := s.value.(string)
			j := -1
			for i := len(s.path) - 1; i >= 0; i-- {
				if _, isInt := s.path[i].(int); isInt {
					j = i
					break
				}
			}
			if !isStr || j < 0 {
				return nil
			}
			n := s.path[j].(int)
			if ph == "{n}" {
				list := fmt.Sprint(s.obs) + s.path[:j].String()
				n = pos[list]
				pos[list]++
			}
			num := strconv.Itoa(n)
			at := strings.LastIndex(v, num)
			if at < 0 {
				ok = false
				break
			}
			f := v[:at] + ph + v[at+len(num):]
			if format != "" && f != format {
				ok = false
				break
			}
			format = f
		}
		if ok && format != "" {
			out = append(out, format)
		}
	}
	return out
}
