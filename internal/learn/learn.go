// Package learn keeps what a cluster's mutating admission adds to objects
// as a profile of webhook mutations ('cmp-defaults profiles learn').
//
// Each object is dry-run twice. Only what both runs add, with the same
// value, to every object that could get it is learned; a value that differs
// between the runs or between objects (identities, timestamps, generated
// names) is reported with the narrow ignoreDifferences rule that covers it.
// Concrete list indexes are generalised to [] when every item that lacks
// the field gets the same value; when the value follows a sibling field of
// the item, the rule is kept under that condition. Values the user wrote
// are never learned: a rewrite is reported.
package learn

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Observation is one object and what two dry runs of the cluster's
// admission made of it.
type Observation struct {
	ID         string // Kind namespace/name, for reports
	APIVersion string
	Kind       string
	Exists     bool           // stored already: the first run merged with it
	Sent       map[string]any // as sent: as written, filled with the selected profiles
	// Runs[0] is the object applied (dry run) as Argo CD applies it;
	// Runs[1] a second dry run: applied again, or, for an object that
	// exists, created under a generated name (admission of the object alone).
	Runs [2]map[string]any
}

// Reasons a field is not learned.
const (
	ReasonRuns    = "differs-between-dry-runs"
	ReasonObjects = "differs-between-objects"
	ReasonStored  = "from-stored-object"
	ReasonRewrite = "rewrites-user-value"
	ReasonDropped = "dropped"
	ReasonList    = "list-items-changed"
	ReasonServer  = "server-owned"
	ReasonCopy    = "copies-a-sibling"
)

// Rule is one learned mutation.
type Rule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	When       string `json:"when,omitempty"`
	Value      any    `json:"value"`
	// The mutation forms (operators.Mutation): a value per list item,
	// an entry inserted into a list, a zero value dropped.
	Format  string `json:"format,omitempty"`
	Insert  string `json:"insert,omitempty"`
	Key     string `json:"key,omitempty"`
	Drop    bool   `json:"drop,omitempty"`
	Fields  int    `json:"fields"`  // fields it was seen added to
	Objects int    `json:"objects"` // in how many objects
}

// Rewrite is a value admission replaces where it is written: learned as
// data (never filled: cmp-defaults does not change what the user wrote;
// fill warns).
type Rewrite struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	When       string `json:"when,omitempty"`
	From       any    `json:"from"`
	To         any    `json:"to"`
	Fields     int    `json:"fields"`
	Objects    int    `json:"objects"`
}

// IgnoreRule is the Argo CD ignoreDifferences entry that covers a field.
type IgnoreRule struct {
	Group             string   `json:"group"`
	Kind              string   `json:"kind"`
	JQPathExpressions []string `json:"jqPathExpressions"`
}

// Finding is a field admission changed that was not learned, and why.
type Finding struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Path       string      `json:"path"`
	Reason     string      `json:"reason"`
	Why        string      `json:"why"`
	Values     []string    `json:"values,omitempty"` // JSON texts seen
	Objects    []string    `json:"objects,omitempty"`
	Ignore     *IgnoreRule `json:"ignoreDifferences,omitempty"`
	Fix        string      `json:"fix,omitempty"`
}

// Result is what Build learned and what it left out.
type Result struct {
	Rules    []Rule    `json:"rules"`
	Rewrites []Rewrite `json:"rewrites,omitempty"`
	Findings []Finding `json:"notLearned"`
}

// Build learns the mutations the observations agree on.
func Build(obs []Observation) *Result {
	return build(obs, nil)
}

// Build learns the mutations the observations agree on, with the
// variations' conditions as candidate deciders.
func (v *Variations) Build(obs []Observation) *Result {
	return build(obs, v.evalConditions(obs))
}

func newBuilder() *builder {
	return &builder{adds: map[int]map[string]any{}, unstable: map[int]map[string]bool{}, groups: map[string]*group{}, findings: map[string]*Finding{},
		inserts: map[int]map[string]insertion{}, written: map[int]map[string]string{}, listGroups: map[string]*group{}, writtenGroups: map[string]*group{}}
}

// observeAll is a builder that has seen every observation.
func observeAll(obs []Observation, conds []condition) *builder {
	b := newBuilder()
	b.conds = conds
	for i := range obs {
		b.observe(i, &obs[i])
	}
	return b
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

func build(obs []Observation, conds []condition) *Result {
	b := observeAll(obs, conds)
	res := &Result{Rules: []Rule{}, Findings: []Finding{}}
	for _, g := range b.sortedGroups() {
		rules, f := b.decide(obs, g)
		res.Rules = append(res.Rules, rules...)
		if f != nil {
			b.add(f)
		}
	}
	for _, g := range sortedOf(b.listGroups) {
		rules, f := b.decideInsert(obs, g)
		res.Rules = append(res.Rules, rules...)
		if f != nil {
			b.add(f)
		}
	}
	for _, g := range sortedOf(b.writtenGroups) {
		rules, rewrites, fs := b.decideWritten(obs, g)
		res.Rules = append(res.Rules, rules...)
		res.Rewrites = append(res.Rewrites, rewrites...)
		for _, f := range fs {
			b.add(f)
		}
	}
	sort.SliceStable(res.Rules, func(i, j int) bool {
		a, c := res.Rules[i], res.Rules[j]
		if a.APIVersion+" "+a.Kind != c.APIVersion+" "+c.Kind {
			return a.APIVersion+" "+a.Kind < c.APIVersion+" "+c.Kind
		}
		if a.Path != c.Path {
			return a.Path < c.Path
		}
		return a.When < c.When
	})
	for _, k := range slices.Sorted(maps.Keys(b.findings)) {
		f := b.findings[k]
		sort.Strings(f.Objects)
		sort.Strings(f.Values)
		res.Findings = append(res.Findings, *f)
	}
	return res
}

// group is every addition at one generalised path of one kind.
type group struct {
	apiVersion, kind string
	gen              []tree.Seg
	path             string
}

type builder struct {
	// adds[observation][concrete path]: the value both runs added;
	// unstable: where the runs disagreed.
	adds     map[int]map[string]any
	unstable map[int]map[string]bool
	groups   map[string]*group
	findings map[string]*Finding
	conds    []condition // candidate deciders on the whole object
	// inserts[observation][list path]: the entry both runs inserted;
	// listGroups: those lists, generalised.
	inserts    map[int]map[string]insertion
	listGroups map[string]*group
	// written[observation][concrete path]: what admission did to a value
	// the object states ("drop", or "to:" and the JSON stored);
	// writtenGroups: those fields, generalised.
	written       map[int]map[string]string
	writtenGroups map[string]*group
}

func (b *builder) observe(i int, o *Observation) {
	sent := cluster.Comparable(o.Sent)
	r0, r1 := cluster.Comparable(o.Runs[0]), cluster.Comparable(o.Runs[1])
	b.serverOwned(o)
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
				b.finding(o, c.Path, ReasonDropped, c.From, nil)
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
					b.finding(o, p, reason, x, y)
				}
				if stable != nil {
					b.addition(i, o, c.Path, stable)
				}
			case xList && yList:
				if e, ok := inserted(xl, yl); ok && inOther && jsonText(w) == jsonText(c.To) {
					b.insertion(i, o, c.Path, e)
					continue
				}
				b.finding(o, c.Path, ReasonList, len(xl), len(yl))
			case scalar(c.From) && scalar(c.To) && inOther && jsonText(w) == jsonText(c.To):
				b.wrote(i, o, c.Path, "to:"+jsonText(c.To))
			default:
				b.finding(o, c.Path, ReasonRewrite, c.From, c.To)
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

func (b *builder) sortedGroups() []*group {
	var out []*group
	for _, k := range slices.Sorted(maps.Keys(b.groups)) {
		out = append(out, b.groups[k])
	}
	return out
}

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
	for _, full := range []bool{true, false} {
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

func (b *builder) add(f *Finding) {
	k := f.APIVersion + " " + f.Kind + " " + f.Path + " " + f.Reason
	b.findings[k] = f
}

// finding records a field left out of one object.
func (b *builder) finding(o *Observation, p tree.Path, reason string, from, to any) {
	path := tree.FormatPath(generalise(p))
	k := o.APIVersion + " " + o.Kind + " " + path + " " + reason
	f := b.findings[k]
	if f == nil {
		f = &Finding{APIVersion: o.APIVersion, Kind: o.Kind, Path: path, Reason: reason}
		switch reason {
		case ReasonRuns:
			f.Why = "two dry runs of the same object got different values (an identity, a timestamp, a generated name): not a default"
			f.Ignore = ignoreRule(o.APIVersion, o.Kind, path)
		case ReasonStored:
			f.Why = "only the dry run over the stored object has it: the stored object holds it (another field manager or a controller wrote it), admission did not add it"
		case ReasonRewrite:
			f.Why = "admission rewrites a value the manifest states; cmp-defaults never changes what you wrote"
			f.Fix = "write the value the cluster stores in Git, or exempt the object from the webhook"
		case ReasonDropped:
			f.Why = "the cluster drops this field (not in its schema, or a null it does not keep)"
			f.Fix = "remove the field from Git"
		case ReasonList:
			f.Why = "admission adds or removes list items; mutations only set absent fields"
			f.Ignore = ignoreRule(o.APIVersion, o.Kind, path)
		}
		b.findings[k] = f
	}
	if !contains(f.Objects, o.ID) {
		f.Objects = append(f.Objects, o.ID)
	}
	if reason == ReasonRuns || reason == ReasonRewrite || reason == ReasonList {
		var v string
		if reason == ReasonRuns {
			v = jsonText(from) + " then " + jsonText(to)
		} else {
			v = jsonText(from) + " -> " + jsonText(to)
		}
		if len(f.Values) < 3 && !contains(f.Values, v) {
			f.Values = append(f.Values, v)
		}
	}
}

// serverOwned reports the metadata the API server sets on every object and
// status, once per kind.
func (b *builder) serverOwned(o *Observation) {
	md, _ := o.Runs[0]["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "generation", "managedFields", "resourceVersion", "uid"} {
		if _, ok := md[k]; !ok {
			continue
		}
		b.server(o, tree.Path{"metadata", k}, "set by the API server on every object (identity, version, time, field ownership); Argo CD does not compare it: no rule needed")
	}
	if _, ok := o.Runs[0]["status"]; ok {
		b.server(o, tree.Path{"status"}, "written by the API server and controllers; Argo CD ignores /status by default: no rule needed")
	}
}

func (b *builder) server(o *Observation, p tree.Path, why string) {
	path := p.String()
	k := o.APIVersion + " " + o.Kind + " " + path + " " + ReasonServer
	if f := b.findings[k]; f != nil {
		if !contains(f.Objects, o.ID) {
			f.Objects = append(f.Objects, o.ID)
		}
		return
	}
	b.findings[k] = &Finding{APIVersion: o.APIVersion, Kind: o.Kind, Path: path, Reason: ReasonServer, Why: why, Objects: []string{o.ID}}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func ignoreRule(apiVersion, kind, path string) *IgnoreRule {
	group := ""
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	return &IgnoreRule{Group: group, Kind: kind, JQPathExpressions: []string{path}}
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

func hasIter(segs []tree.Seg) bool {
	for _, s := range segs {
		if s.Iter {
			return true
		}
	}
	return false
}

// dotField renders .name or .["odd name"].
func dotField(name string) string {
	f := tree.Field(name)
	if f[0] == '[' {
		return "." + f
	}
	return f
}

// jsonText is a value's canonical JSON (sorted keys; 1 and 1.0 alike).
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// siblingCond is the jq condition that the sibling field sib holds the
// value whose key is k (present: set to anything).
func siblingCond(sib, k string) string {
	if k == present {
		return dotField(sib) + " != null"
	}
	return dotField(sib) + " == " + k
}
