// Package audit checks Argo CD ignoreDifferences rules (read and evaluated
// by internal/argocd) against filled manifests: which rules cmp-defaults
// makes redundant, which still hide something cmp-defaults cannot fill, and
// which match nothing at all.
package audit

import (
	"fmt"
	"slices"
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
	// OutOfScope: the rule matches only kinds no selected profile covers:
	// it is not about admission defaults, so cmp-defaults has no say.
	OutOfScope Status = "out-of-scope"
	// NotAudited: it matches no rendered object, and a source of its
	// Application was not rendered: its objects may be what it is about.
	NotAudited Status = "not-audited"
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
	// UnknownWebhook names the selected release's webhook that matches the
	// object and whose defaults were not learned: it may add the field.
	UnknownWebhook string `json:"unknownWebhook,omitempty"`

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
	OutOfScope      int `json:"outOfScope"`
	NotAudited      int `json:"notAudited"`
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
	Operators []Operator `json:"operators"`
	Objects   int        `json:"objects"`
	// RepoRoot and Applications say what was rendered for which
	// Application, when audit rendered their sources.
	RepoRoot     string        `json:"repoRoot,omitempty"`
	Applications []AppSources  `json:"applications,omitempty"`
	Rules        []*RuleReport `json:"rules"`
	Summary      Summary       `json:"summary"`
}

// AppSources says what audit rendered for one Application.
type AppSources struct {
	Origin    argocd.Origin  `json:"origin"` // field empty
	Operators []string       `json:"operators"`
	Sources   []SourceReport `json:"sources"`
}

// SourceReport is one source of an Application: the directory rendered,
// or why it was not.
type SourceReport struct {
	Field    string `json:"field"`          // spec.source, spec.sources[1]
	Path     string `json:"path,omitempty"` // as the Application writes it
	Dir      string `json:"dir,omitempty"`  // rendered, relative to the repository root
	Rendered bool   `json:"rendered"`
	Objects  int    `json:"objects"`
	Reason   string `json:"reason,omitempty"` // why it was not rendered
}

// Group is rules judged against the same filled objects: one
// Application's, or argocd-cm's against every application's.
type Group struct {
	Rules    []*argocd.Rule
	Targets  []*Target
	Releases []*operators.Resolution // the operator releases that filled them
	// Unrendered names the sources of the Application that were not
	// rendered: a rule that matches nothing may be about their objects.
	Unrendered []string
}

// Classify audits every rule against the filled targets. res are the selected
// operator releases; their default paths tell apart fields the profiles
// would fill from fields only a controller writes.
// hist, when set, tells in which other releases a field was a default.
func Classify(rules []*argocd.Rule, targets []*Target, res []*operators.Resolution, hist *History) *Report {
	return ClassifyGroups([]Group{{Rules: rules, Targets: targets, Releases: res}}, hist)
}

// ClassifyGroups audits each group's rules against its targets, in order, in
// one report.
func ClassifyGroups(groups []Group, hist *History) *Report {
	rep := &Report{Operators: []Operator{}, Rules: []*RuleReport{}}
	for _, g := range groups {
		rep.addOperators(g.Releases)
		rep.Objects += len(g.Targets)
		defs := NewDefaults(g.Releases)
		defs.hist = hist
		for _, t := range g.Targets {
			t.prepare()
		}
		for _, r := range g.Rules {
			rr := auditRule(r, g.Targets, defs, g.Unrendered)
			rep.Rules = append(rep.Rules, rr)
			rep.Summary.count(rr)
		}
	}
	return rep
}

func (rep *Report) addOperators(res []*operators.Resolution) {
	for _, r := range res {
		op := Operator{Name: r.Operator, Release: r.Requested}
		if r.Profile != nil {
			op.Profile = r.Profile.Version
		}
		if !slices.Contains(rep.Operators, op) {
			rep.Operators = append(rep.Operators, op)
		}
	}
}

func (s *Summary) count(rr *RuleReport) {
	s.Rules++
	for _, c := range rr.Checks {
		s.Checks++
		switch c.Status {
		case Redundant:
			s.Redundant++
		case PartlyRedundant:
			s.PartlyRedundant++
		case StillNeeded:
			s.StillNeeded++
		case MatchesNothing:
			s.MatchesNothing++
		case Invalid:
			s.Invalid++
		case OutOfScope:
			s.OutOfScope++
		case NotAudited:
			s.NotAudited++
		}
	}
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

func auditRule(r *argocd.Rule, targets []*Target, defs *Defaults, unrendered []string) *RuleReport {
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
		status, reason := unmatched(r, targets, unrendered, rr)
		for _, c := range allChecks(r, newCheck) {
			c.Status, c.Reason = status, reason
		}
		return rr
	}
	// Only kinds a selected profile covers have admission defaults that
	// cmp-defaults fills; the rule is judged on those objects alone.
	var covered []*Target
	var others []string
	for _, t := range matched {
		if g, k := argocd.GroupKind(t.Object.Data); defs.covers(g) {
			covered = append(covered, t)
		} else if gk := groupKind(g, k); !slices.Contains(others, gk) {
			others = append(others, gk)
		}
	}
	if len(covered) == 0 {
		reason := fmt.Sprintf("no selected operator profile covers %s; this rule is not about admission defaults (all that cmp-defaults fills), so audit does not judge it: keep it while something in the cluster writes the field, such as an HPA scaling .spec.replicas", strings.Join(others, ", "))
		for _, c := range allChecks(r, newCheck) {
			c.Status, c.Reason = OutOfScope, reason
			if err := invalid(c); err != "" {
				c.Status, c.Reason = Invalid, err
			}
		}
		return rr
	}
	matched = covered
	for _, p := range r.JSONPointers {
		c := newCheck("jsonPointer", p)
		if msg := invalid(c); msg != "" {
			c.Status, c.Reason = Invalid, msg
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
			c.Status, c.Reason = Invalid, invalid(c)
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
		group, _, _ := strings.Cut(av, "/")
		col.c.Remaining = append(col.c.Remaining, Field{Object: id, Path: path, Reason: NotInGit, History: defs.history(av, k, p),
			UnknownWebhook: defs.unknownWebhook(group, k), path: p})
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
		if wh := defs.unknownWebhook(r.Group, r.Kind); wh != "" {
			was := ""
			if len(history) > 0 {
				was = ", and was an admission default in " + strings.Join(history, ", ")
			}
			c.Reason = fmt.Sprintf("it ignores a field absent from Git that this release's webhook may add%s: this release's webhook defaults are not known (%s was not learned), so cmp-defaults fills none of them; keep it", was, wh) + failNote
		} else if len(history) > 0 {
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
