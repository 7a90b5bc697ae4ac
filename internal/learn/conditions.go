package learn

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// conditional keeps one rule per sibling value that leads to an addition.
func (b *builder) conditional(g *group, slots []slot, sib string, rule func(path, when string, match []slot) Rule) []Rule {
	byVal := map[string][]slot{}
	for _, s := range slots {
		k := condKey(sib, s.parent[sib])
		byVal[k] = append(byVal[k], s)
	}
	keys := make([]string, 0, len(byVal))
	for k := range byVal {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parent := g.gen[:len(g.gen)-1]
	field := g.gen[len(g.gen)-1]
	var out []Rule
	for _, k := range keys {
		match := byVal[k]
		if match[0].outcome == "" {
			continue
		}
		cond := siblingCond(sib, k)
		if hasIter(parent) {
			path := tree.FormatPath(parent) + " | select(" + cond + ") | " + dotField(field.Name)
			out = append(out, rule(path, "", match))
			continue
		}
		when := tree.FormatPath(parent) + cond
		if len(parent) == 0 {
			when = cond
		}
		out = append(out, rule(g.path, when, match))
	}
	return out
}

// deciding finds the condition that decides the field: first one whose
// value decides the outcome of every slot (at least two outcomes, a value
// seen more than once); else one whose value decides it for some values
// only (every slot with that value got the same addition, and there are
// at least two such slots): rules for those values, the rest reported.
func (b *builder) deciding(slots []slot) (condition, bool) {
	if c, ok := b.decides(slots, true); ok {
		return c, true
	}
	return b.decides(slots, false)
}

// decides finds the first condition that decides every slot (full) or
// some values' slots, as deciding says.
func (b *builder) decides(slots []slot, full bool) (condition, bool) {
next:
	for _, c := range b.conds {
		outcome := map[string]string{}
		count := map[string]int{}
		mixed := map[string]bool{}
		for _, s := range slots {
			k := c.values[s.obs]
			if o, seen := outcome[k]; seen && o != s.outcome {
				if full {
					continue next
				}
				mixed[k] = true
			}
			outcome[k] = s.outcome
			count[k]++
		}
		if len(outcome) < 2 {
			continue
		}
		if full {
			distinct := map[string]bool{}
			repeated := false
			for k, o := range outcome {
				distinct[o] = true
				repeated = repeated || count[k] > 1
			}
			if len(distinct) > 1 && repeated {
				return c, true
			}
			continue
		}
		for k, o := range outcome {
			if !mixed[k] && o != "" && count[k] > 1 {
				return c, true
			}
		}
	}
	return condition{}, false
}

// conditioned keeps one rule per value of the condition c for which every
// slot got the same addition, seen more than once, with the condition in
// 'when'; the values that leave the outcome open are reported.
func conditioned(g *group, obs []Observation, slots []slot, c condition, rule func(path, when string, match []slot) Rule) ([]Rule, *Finding) {
	byVal := map[string][]slot{}
	for _, s := range slots {
		k := c.values[s.obs]
		byVal[k] = append(byVal[k], s)
	}
	var out []Rule
	var open []string
	copies := false
	objs := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(byVal)) {
		match := byVal[k]
		same := !slices.ContainsFunc(match, func(s slot) bool { return s.outcome != match[0].outcome })
		if same && (len(match) > 1 || len(byVal) == 1) && strings.HasPrefix(k, `"`) && hasLeaf(match[0].value, k) {
			copies = true // the value follows the condition's: a copy
		} else if same && (len(match) > 1 || len(byVal) == 1) {
			if match[0].outcome != "" {
				out = append(out, rule(g.path, "("+c.expr+") == "+k, match))
			}
			continue
		}
		if same && match[0].outcome == "" {
			continue
		}
		if !copies || !strings.HasPrefix(k, `"`) || !hasLeaf(match[0].value, k) {
			open = append(open, k)
		}
		for _, s := range match {
			objs[obs[s.obs].ID] = true
		}
	}
	if len(open) == 0 && !copies {
		return out, nil
	}
	f := &Finding{APIVersion: g.apiVersion, Kind: g.kind, Path: g.path, Reason: ReasonObjects, Ignore: ignoreRule(g.apiVersion, g.kind, g.path)}
	switch {
	case copies && len(open) == 0:
		f.Reason = ReasonCopy
		f.Why = fmt.Sprintf("admission copies the value of (%s) into it where that has a value: it follows what each object says, not learned (only the value where it has none is)", c.expr)
	case copies:
		f.Why = fmt.Sprintf("admission copies the value of (%s) into it where that has a value, and adds different values where it is %s: not a default (only the rules shown are)", c.expr, strings.Join(open, " or "))
	default:
		f.Why = fmt.Sprintf("learned only where (%s) is what the rules say; where it is %s, admission adds different values (or one object's value): not a default", c.expr, strings.Join(open, " or "))
	}
	f.Objects = slices.Sorted(maps.Keys(objs))
	return out, f
}

// present is the sibling key of an object or list: its presence decides.
const present = "(present)"

// sibKey is a sibling's value as a condition sees it: a scalar's JSON,
// null when absent, or present for an object or list.
func sibKey(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		return present
	}
	return jsonText(v)
}

// deciders lists, sorted by name, the sibling fields whose value (or
// presence) decides the outcome of every slot, with at least two outcomes.
// A sibling whose every value is seen once may be a coincidence (a name per
// object): Variants tells which. An identifying sibling decides by its
// presence only.
func deciders(slots []slot) (fits []string, repeated map[string]bool) {
	names := map[string]bool{}
	for _, s := range slots {
		for k := range s.parent {
			names[k] = true
		}
	}
	repeated = map[string]bool{}
next:
	for _, sib := range slices.Sorted(maps.Keys(names)) {
		outcome := map[string]string{}
		count := map[string]int{}
		for _, s := range slots {
			k := condKey(sib, s.parent[sib])
			if o, seen := outcome[k]; seen && o != s.outcome {
				continue next
			}
			outcome[k] = s.outcome
			count[k]++
		}
		distinct := map[string]bool{}
		for k, o := range outcome {
			distinct[o] = true
			if count[k] > 1 {
				repeated[sib] = true
			}
		}
		if len(distinct) > 1 {
			fits = append(fits, sib)
		}
	}
	return fits, repeated
}

// condKey is sibKey, but an identifying sibling counts as present or null.
func condKey(sib string, v any) string {
	if identifying(sib) && v != nil {
		return present
	}
	return sibKey(v)
}

// identifying says whether a sibling names one thing (its name, the name
// of another object, an image, a host): a rule conditioned on its value
// fits the objects that were learned from and no one else's, so it is no
// default, whatever the evidence; only its presence may decide.
func identifying(sib string) bool {
	switch sib {
	case "name", "image", "host", "hosts":
		return true
	}
	return strings.HasSuffix(sib, "Name")
}

// discriminator finds the first sibling (by name) that decides every slot
// and has some value seen more than once: evidence, not a value per object.
func discriminator(slots []slot) (string, bool) {
	fits, repeated := deciders(slots)
	for _, sib := range fits {
		if repeated[sib] {
			return sib, true
		}
	}
	return "", false
}

// siblingCond is the jq condition that the sibling field sib holds the
// value whose key is k (present: set to anything).
func siblingCond(sib, k string) string {
	if k == present {
		return dotField(sib) + " != null"
	}
	return dotField(sib) + " == " + k
}
