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
	return &builder{findings: findingSet{}, observed: observed{adds: map[int]map[string]any{}, unstable: map[int]map[string]bool{}, groups: map[string]*group{},
		inserts: map[int]map[string]insertion{}, written: map[int]map[string]string{}, listGroups: map[string]*group{}, writtenGroups: map[string]*group{}}}
}

func build(obs []Observation, conds []condition) *Result {
	b := observeAll(obs, conds)
	res := &Result{Rules: []Rule{}, Findings: []Finding{}}
	for _, g := range b.sortedGroups() {
		rules, f := b.decide(obs, g)
		res.Rules = append(res.Rules, rules...)
		if f != nil {
			b.findings.add(f)
		}
	}
	for _, g := range sortedOf(b.listGroups) {
		rules, f := b.decideInsert(obs, g)
		res.Rules = append(res.Rules, rules...)
		if f != nil {
			b.findings.add(f)
		}
	}
	for _, g := range sortedOf(b.writtenGroups) {
		rules, rewrites, fs := b.decideWritten(obs, g)
		res.Rules = append(res.Rules, rules...)
		res.Rewrites = append(res.Rewrites, rewrites...)
		for _, f := range fs {
			b.findings.add(f)
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
	res.Findings = b.findings.sorted()
	return res
}

// group is every addition at one generalised path of one kind.
type group struct {
	apiVersion, kind string
	gen              []tree.Seg
	path             string
}

// builder is the state of one learning run, filled phase by phase:
// observe.go collects what the dry runs did (observed), decide.go,
// conditions.go and forms.go make rules of it group by group, and
// findings.go keeps what is not learned and why.
type builder struct {
	observed
	findings findingSet
	conds    []condition // candidate deciders on the whole object
}

// observed is what admission did to each observation, by concrete path,
// and those paths generalised into groups.
type observed struct {
	// adds[observation][concrete path]: the value both runs added;
	// unstable: where the runs disagreed.
	adds     map[int]map[string]any
	unstable map[int]map[string]bool
	groups   map[string]*group
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

func (b *builder) sortedGroups() []*group {
	var out []*group
	for _, k := range slices.Sorted(maps.Keys(b.groups)) {
		out = append(out, b.groups[k])
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

func sortedOf(m map[string]*group) []*group {
	var out []*group
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}
