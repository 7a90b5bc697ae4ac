// Package audit checks Argo CD ignoreDifferences rules (read and evaluated
// by internal/argocd) against filled manifests: which rules cmp-defaults
// makes redundant, which still hide something cmp-defaults cannot fill, and
// which match nothing at all.
package audit

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Status is the verdict on one expression of a rule.
type Status string

const (
	// Redundant: everything it ignores is filled by the selected profiles.
	Redundant Status = "redundant"
	// PartlyRedundant: some ignored fields are filled, others are not.
	PartlyRedundant Status = "partly-redundant"
	// StillNeeded: it ignores fields cmp-defaults does not fill.
	StillNeeded Status = "still-needed"
	// MatchesNothing: no object matches the rule's group, kind, name and namespace.
	MatchesNothing Status = "matches-nothing"
	// Invalid: Argo CD cannot use the expression at all.
	Invalid Status = "invalid"
)

// Why a remaining field is not covered.
const (
	InGit    = "in-git"     // set in the manifests: not a default
	NotInGit = "not-in-git" // absent from the filled object and not a default: live only
)

// Target is one rendered object, after filling, with what the engine set.
type Target struct {
	Object manifest.Object
	Filled []defaults.Filled

	doc    map[string]any
	docErr error
	filled []tree.Path // Filled's paths, parsed; nil where one does not parse
}

// Field is one ignored field of one object.
type Field struct {
	Object string `json:"object"`
	Path   string `json:"path"`
	Value  any    `json:"value,omitempty"`
	// For fields cmp-defaults fills: the profile rule and where it comes from.
	Rule string `json:"rule,omitempty"`
	Type string `json:"type,omitempty"` // default or mutation
	By   *By    `json:"by,omitempty"`
	// Absent is set for a default the object does not get because the
	// field's parent is absent: admission adds nothing there either.
	Absent bool `json:"absent,omitempty"`
	// For remaining fields: InGit or NotInGit.
	Reason string `json:"reason,omitempty"`
	// History names the releases of the selected operators in which a
	// field absent from Git was an admission default, e.g. "2.3.0–2.6.x".
	History string `json:"defaultIn,omitempty"`

	path tree.Path
}

// Check is the verdict on one jsonPointer, jqPathExpression or
// managedFieldsManager of a rule.
type Check struct {
	Type       string  `json:"type"` // jqPathExpression, jsonPointer or managedFieldsManager
	Expression string  `json:"expression"`
	Status     Status  `json:"status"`
	Reason     string  `json:"reason"`
	Filled     []Field `json:"filled"`    // ignored fields cmp-defaults fills
	Remaining  []Field `json:"remaining"` // ignored fields it does not fill
	// Keep is the narrowed rule of a partly redundant check: the
	// expressions that still ignore something neither Git nor a profile explains.
	Keep   []string `json:"keep,omitempty"`
	Errors []string `json:"errors,omitempty"`
}

// ObjectRef names a matched object and where it came from.
type ObjectRef struct {
	Object   string `json:"object"`
	Source   string `json:"source"`
	Document int    `json:"document"`
	Line     int    `json:"line"`
}

// RuleReport is the audit of one ignoreDifferences entry.
type RuleReport struct {
	Origin    argocd.Origin `json:"origin"`
	Group     string        `json:"group"`
	Kind      string        `json:"kind"`
	Name      string        `json:"name,omitempty"`
	Namespace string        `json:"namespace,omitempty"`
	Matched   []ObjectRef   `json:"matched"`
	Hint      string        `json:"hint,omitempty"`
	Checks    []*Check      `json:"checks"`

	rule *argocd.Rule
}

// Summary counts checks by status.
type Summary struct {
	Rules           int `json:"rules"`
	Checks          int `json:"checks"`
	Redundant       int `json:"redundant"`
	PartlyRedundant int `json:"partlyRedundant"`
	StillNeeded     int `json:"stillNeeded"`
	MatchesNothing  int `json:"matchesNothing"`
	Invalid         int `json:"invalid"`
}

// Operator is one selected operator release.
type Operator struct {
	Name    string `json:"name"`
	Release string `json:"release"`
	Profile string `json:"profile"`
}

func (o Operator) String() string {
	return o.Name + "@" + strings.TrimPrefix(o.Release, "v") + " (profile " + o.Profile + ")"
}

// Report is the whole audit.
type Report struct {
	Operators []Operator    `json:"operators"`
	Objects   int           `json:"objects"`
	Rules     []*RuleReport `json:"rules"`
	Summary   Summary       `json:"summary"`
}

// Run audits every rule against the filled targets. res are the selected
// operator releases; their default paths tell apart fields the profiles
// would fill from fields only a controller writes.
// hist, when set, tells in which other releases a field was a default.
func Run(rules []*argocd.Rule, targets []*Target, res []*operators.Resolution, hist *History) *Report {
	rep := &Report{Operators: []Operator{}, Objects: len(targets), Rules: []*RuleReport{}}
	for _, r := range res {
		op := Operator{Name: r.Operator, Release: r.Requested}
		if r.Profile != nil {
			op.Profile = r.Profile.Version
		}
		rep.Operators = append(rep.Operators, op)
	}
	defs := NewDefaults(res)
	defs.hist = hist
	for _, t := range targets {
		t.prepare()
	}
	for _, r := range rules {
		rr := auditRule(r, targets, defs)
		rep.Rules = append(rep.Rules, rr)
		rep.Summary.Rules++
		for _, c := range rr.Checks {
			rep.Summary.Checks++
			switch c.Status {
			case Redundant:
				rep.Summary.Redundant++
			case PartlyRedundant:
				rep.Summary.PartlyRedundant++
			case StillNeeded:
				rep.Summary.StillNeeded++
			case MatchesNothing:
				rep.Summary.MatchesNothing++
			case Invalid:
				rep.Summary.Invalid++
			}
		}
	}
	return rep
}

func (t *Target) prepare() {
	if t.doc != nil || t.docErr != nil {
		return
	}
	t.doc, t.docErr = argocd.JSONDoc(t.Object.Data)
	t.filled = t.filled[:0]
	for _, f := range t.Filled {
		p, _ := tree.ParseConcrete(f.Path)
		t.filled = append(t.filled, p)
	}
}

// covering finds the filled record at leaf or above it.
func (t *Target) covering(leaf tree.Path) *defaults.Filled {
	// The deepest filled path: an object default is filled before its
	// children's defaults, and a child filled by its own rule is that
	// rule's, not the object default's.
	var best *defaults.Filled
	n := -1
	for i, f := range t.filled {
		if f != nil && len(f) > n && leaf.HasPrefix(f) {
			best, n = &t.Filled[i], len(f)
		}
	}
	return best
}

func (t *Target) apiVersionKind() (string, string) {
	av, _ := t.Object.Data["apiVersion"].(string)
	k, _ := t.Object.Data["kind"].(string)
	return av, k
}

func auditRule(r *argocd.Rule, targets []*Target, defs *Defaults) *RuleReport {
	rr := &RuleReport{Origin: r.Origin, Group: r.Group, Kind: r.Kind, Name: r.Name, Namespace: r.Namespace, Matched: []ObjectRef{}, Checks: []*Check{}, rule: r}
	var matched []*Target
	for _, t := range targets {
		if r.Matches(t.Object.Data) {
			matched = append(matched, t)
			rr.Matched = append(rr.Matched, ObjectRef{Object: t.Object.ID(), Source: t.Object.Source, Document: t.Object.Doc, Line: t.Object.Line})
		}
	}
	newCheck := func(typ, expr string) *Check {
		c := &Check{Type: typ, Expression: expr, Filled: []Field{}, Remaining: []Field{}}
		rr.Checks = append(rr.Checks, c)
		return c
	}
	if len(matched) == 0 {
		rr.Hint = hint(r, targets)
		reason := "no rendered object has " + r.Target()
		if rr.Hint != "" {
			reason += "; " + rr.Hint
		}
		reason += ". The rule has no effect on this application: fix or delete it"
		for _, p := range r.JSONPointers {
			c := newCheck("jsonPointer", p)
			c.Status, c.Reason = MatchesNothing, reason
		}
		for _, e := range r.JQPathExpressions {
			c := newCheck("jqPathExpression", e)
			c.Status, c.Reason = MatchesNothing, reason
		}
		for _, m := range r.ManagedFieldsManagers {
			c := newCheck("managedFieldsManager", m)
			c.Status, c.Reason = MatchesNothing, reason
		}
		return rr
	}
	for _, p := range r.JSONPointers {
		c := newCheck("jsonPointer", p)
		if _, _, err := argocd.Pointer(map[string]any{}, p); err != nil {
			c.Status = Invalid
			c.Reason = err.Error() + "; Argo CD's remove patch does not find the field, so it ignores nothing: write it as /" + strings.TrimLeft(p, "/")
			continue
		}
		col := newCollector(c)
		col.visit(matched, func(t *Target) error {
			path, exists, err := argocd.Pointer(t.doc, p)
			if err != nil {
				return err
			}
			if !exists {
				if parent := missingParent(t.doc, path); parent != "" {
					col.errorf(t, "%s: the parent %s is missing, so Argo CD's JSON patch fails on this object (\"doc is missing path\") and removes nothing here", p, parent)
				}
			}
			col.add(t, path, exists, defs)
			return nil
		})
		col.classify(r, defs, nil, true)
	}
	for _, e := range r.JQPathExpressions {
		c := newCheck("jqPathExpression", e)
		code, err := argocd.CompileJQ(e)
		if err != nil {
			c.Status = Invalid
			c.Reason = fmt.Sprintf("not a valid jq path expression (%v); Argo CD cannot build its diff normalizer and the application's comparison fails", err)
			continue
		}
		col := newCollector(c)
		col.visit(matched, func(t *Target) error {
			paths, err := code.Paths(t.doc)
			for _, p := range paths {
				_, exists := p.Lookup(t.doc)
				col.add(t, p, exists, defs)
			}
			return err
		})
		var segs []tree.Seg
		if s, err := tree.ParsePath(e); err == nil {
			segs = s
		}
		col.classify(r, defs, &staticPath{segs: segs, targets: matched}, false)
	}
	for _, m := range r.ManagedFieldsManagers {
		c := newCheck("managedFieldsManager", m)
		c.Status = StillNeeded
		c.Reason = fmt.Sprintf("managedFieldsManagers makes Argo CD accept every field the manager %q owns in the live object, whatever Git says; "+
			"that is about who writes live fields (a controller or another tool), not about admission defaults, so cmp-defaults cannot replace it", m)
	}
	return rr
}

type staticPath struct {
	segs    []tree.Seg
	targets []*Target
}

// collector gathers what one expression ignores across objects.
type collector struct {
	c    *Check
	seen map[string]bool
}

func newCollector(c *Check) *collector { return &collector{c: c, seen: map[string]bool{}} }

func (col *collector) errorf(t *Target, format string, a ...any) {
	col.c.Errors = append(col.c.Errors, t.Object.ID()+": "+fmt.Sprintf(format, a...))
}

// visit runs fn on each of targets in its JSON form; where that form or fn
// fails, Argo CD's patch fails on the object and removes nothing there.
func (col *collector) visit(targets []*Target, fn func(t *Target) error) {
	for _, t := range targets {
		err := t.docErr
		if err == nil {
			err = fn(t)
		}
		if err != nil {
			col.errorf(t, "%v", err)
		}
	}
}

func (col *collector) once(id, path string) bool {
	k := id + "\x00" + path
	if col.seen[k] {
		return false
	}
	col.seen[k] = true
	return true
}

func (col *collector) add(t *Target, p tree.Path, exists bool, defs *Defaults) {
	id := t.Object.ID()
	if !exists {
		path := p.String()
		if !col.once(id, path) {
			return
		}
		av, k := t.apiVersionKind()
		if rule, by, ok := defs.Match(av, k, p); ok {
			col.c.Filled = append(col.c.Filled, Field{Object: id, Path: path, Rule: rule, Type: "default", By: by, Absent: true})
			return
		}
		col.c.Remaining = append(col.c.Remaining, Field{Object: id, Path: path, Reason: NotInGit, History: defs.history(av, k, p), path: p})
		return
	}
	var ls []tree.Path
	v, _ := p.Lookup(t.doc)
	leaves(v, p, &ls)
	for _, l := range ls {
		path := l.String()
		if !col.once(id, path) {
			continue
		}
		val, _ := l.Lookup(t.doc)
		if f := t.covering(l); f != nil {
			by := fieldBy(f.Origin.Operator, f.Origin.Release, f.Origin.Profile)
			col.c.Filled = append(col.c.Filled, Field{Object: id, Path: path, Value: val, Rule: f.Rule, Type: f.Type, By: by})
			continue
		}
		col.c.Remaining = append(col.c.Remaining, Field{Object: id, Path: path, Value: val, Reason: InGit})
	}
}

func (col *collector) classify(r *argocd.Rule, defs *Defaults, sp *staticPath, asPointer bool) {
	c := col.c
	filled, inGit, notInGit := 0, 0, 0
	for _, f := range c.Filled {
		if !f.Absent {
			filled++
		}
	}
	var history []string
	for _, f := range c.Remaining {
		if f.Reason == InGit {
			inGit++
			continue
		}
		notInGit++
		if f.History != "" && !slices.Contains(history, f.History) {
			history = append(history, f.History)
		}
	}
	failNote := ""
	if len(c.Errors) > 0 {
		failNote = fmt.Sprintf(" (on %d object(s) Argo CD's patch fails and removes nothing; see errors)", len(c.Errors))
	}
	// A kind the operator's mutating webhook matches: a field it ignores
	// that only CRD schema defaults fill may get more from the webhook,
	// which nothing fills unless a mutation rule covers it.
	if wh := defs.webhook(r.Group, r.Kind); wh != "" && notInGit == 0 && len(c.Filled) > 0 && !slices.ContainsFunc(c.Filled, func(f Field) bool { return f.Type == "mutation" }) {
		c.Status = StillNeeded
		c.Reason = fmt.Sprintf("the operator's mutating webhook %s matches %s and may add fields where this rule looks; the selected profiles fill only CRD schema defaults here, no mutation rule: keep it (or learn the webhook's defaults with 'cmp-defaults profiles learn')", wh, r.Kind) + failNote
		return
	}
	switch {
	case notInGit == 0 && (len(c.Filled) > 0 || inGit > 0):
		// Every ignored field is filled or set in Git, so
		// without the rule the diff is clean; with it, changes to the Git
		// fields stay hidden.
		c.Status = Redundant
		switch {
		case inGit > 0 && len(c.Filled) > 0:
			c.Reason = fmt.Sprintf("every field it ignores is either filled by cmp-defaults (%d) or set in Git (%d): without it the diff is clean, and with it changes made in the cluster to the fields set in Git stay hidden: delete it", len(c.Filled), inGit)
		case inGit > 0:
			c.Reason = "every field it ignores is set in Git, so Argo CD compares it with Git without the rule; the rule only hides changes made in the cluster: delete it (if a controller changes the field on purpose, such as an HPA scaling .spec.replicas, leave the field out of Git and keep the rule)"
		case filled > 0:
			c.Reason = "every field it ignores is an admission default that cmp-defaults fills into the desired state, so desired and live agree without it: delete it"
		default:
			c.Reason = "it ignores only admission defaults of the selected profiles, and none is present here because the parent field is absent (admission adds nothing there either); cmp-defaults fills them wherever the parent exists: delete it"
		}
		c.Reason += failNote
	case notInGit > 0 && len(c.Filled) > 0:
		c.Status = PartlyRedundant
		c.Keep = keepExpressions(c.Remaining, asPointer)
		git := ""
		if inGit > 0 {
			git = fmt.Sprintf(", %d are set in Git", inGit)
		}
		c.Reason = fmt.Sprintf("cmp-defaults fills %d of the fields it ignores%s; the other %d are neither set in Git nor admission defaults of the selected releases (%s). Narrow the rule to those (keep only)",
			len(c.Filled), git, notInGit, liveOnly(history)) + failNote
	case notInGit > 0:
		c.Status = StillNeeded
		if len(history) > 0 {
			c.Reason = fmt.Sprintf("it ignores a field absent from Git that the selected release does not default, but that was an admission default in %s: objects created under those releases keep it in the cluster. Keep the rule while such objects exist, or set the field in Git", strings.Join(history, ", ")) + failNote
		} else {
			c.Reason = "it ignores a field absent from Git that is not an admission default of the selected profiles: likely written by a controller after admission, which cmp-defaults does not fill; keep it" + failNote
		}
	default:
		// The expression selected nothing in any matched object.
		if sp != nil && len(sp.segs) > 0 {
			for _, t := range sp.targets {
				av, k := t.apiVersionKind()
				if rule, by, ok := defs.MatchPattern(av, k, sp.segs); ok {
					c.Status = Redundant
					c.Filled = append(c.Filled, Field{Object: t.Object.ID(), Path: rule, Rule: rule, Type: "default", By: by, Absent: true})
					c.Reason = "it selects nothing in these manifests, and what it names is an admission default of the selected profiles, which cmp-defaults fills wherever the parent exists: delete it" + failNote
					return
				}
			}
		}
		c.Status = StillNeeded
		c.Reason = "it selects nothing in the desired objects: the fields it names are absent from Git and are not admission defaults of the selected profiles; likely written by a controller after admission; keep it" + failNote
	}
}

func liveOnly(history []string) string {
	if len(history) > 0 {
		return "admission defaults in " + strings.Join(history, ", ") + ", kept by objects created then"
	}
	return "live only, likely written by a controller"
}

// keepExpressions is the narrowed rule: the fields absent from Git and not
// defaults, as jsonPointers or jqPathExpressions.
func keepExpressions(remaining []Field, asPointer bool) []string {
	var out []string
	for _, f := range remaining {
		if f.Reason != NotInGit {
			continue
		}
		e := f.Path
		if asPointer && f.path != nil {
			e = jsonPointer(f.path)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// jsonPointer writes a path as an RFC 6901 pointer.
func jsonPointer(p tree.Path) string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		switch s := s.(type) {
		case int:
			b.WriteString(strconv.Itoa(s))
		default:
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(fmt.Sprint(s), "~", "~0"), "/", "~1"))
		}
	}
	return b.String()
}

// missingParent names the first missing ancestor of the field at p, as a
// JSON pointer; "" when the parent exists.
func missingParent(doc any, p tree.Path) string {
	for i := 1; i < len(p); i++ {
		if _, ok := p[:i].Lookup(doc); !ok {
			return jsonPointer(p[:i])
		}
	}
	return ""
}

// hint explains why a rule matched nothing when a near miss exists.
func hint(r *argocd.Rule, targets []*Target) string {
	groups := map[string]bool{}
	var names []string
	for _, t := range targets {
		g, k := argocd.GroupKind(t.Object.Data)
		if !strings.EqualFold(k, r.Kind) {
			continue
		}
		if !argocd.MatchGlob(r.Group, g) || !argocd.MatchGlob(r.Kind, k) {
			groups[fmt.Sprintf("group %q, kind %s", g, k)] = true
			continue
		}
		n := argocd.Meta(t.Object.Data, "name")
		if ns := argocd.Meta(t.Object.Data, "namespace"); ns != "" {
			n = ns + "/" + n
		}
		names = append(names, n)
	}
	if len(groups) > 0 {
		l := make([]string, 0, len(groups))
		for g := range groups {
			l = append(l, g)
		}
		sort.Strings(l)
		return "objects of that kind have " + strings.Join(l, " or ") + " (wrong group or kind?)"
	}
	if len(names) > 0 {
		sort.Strings(names)
		return fmt.Sprintf("%s objects here are %s (check name and namespace)", r.Kind, strings.Join(names, ", "))
	}
	return ""
}
