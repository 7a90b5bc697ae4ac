package audit

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// unmatched is the verdict on a rule that matches no object: it matches
// nothing, unless a source of its Application was not rendered.
func unmatched(r *argocd.Rule, targets []*Target, unrendered []string, rr *RuleReport) (Status, string) {
	rr.Hint = hint(r, targets)
	reason := "no rendered object has " + r.Target()
	if rr.Hint != "" {
		reason += "; " + rr.Hint
	}
	if len(unrendered) > 0 {
		return NotAudited, reason + ". The " + r.Origin.Kind + "'s " + strings.Join(unrendered, ", ") + " was not rendered (see why above) and may hold what it is about"
	}
	return MatchesNothing, reason + ". The rule has no effect on this application: fix or delete it"
}

// allChecks makes one check of each expression of r, in the order Argo
// CD's fields come.
func allChecks(r *argocd.Rule, newCheck func(typ, expr string) *Check) []*Check {
	var out []*Check
	for _, p := range r.JSONPointers {
		out = append(out, newCheck("jsonPointer", p))
	}
	for _, e := range r.JQPathExpressions {
		out = append(out, newCheck("jqPathExpression", e))
	}
	for _, m := range r.ManagedFieldsManagers {
		out = append(out, newCheck("managedFieldsManager", m))
	}
	return out
}

// invalid says why Argo CD cannot use c's expression; "" when it can.
func invalid(c *Check) string {
	switch c.Type {
	case "jsonPointer":
		if _, _, err := argocd.Pointer(map[string]any{}, c.Expression); err != nil {
			return err.Error() + "; Argo CD's remove patch does not find the field, so it ignores nothing: write it as /" + strings.TrimLeft(c.Expression, "/")
		}
	case "jqPathExpression":
		if _, err := argocd.CompileJQ(c.Expression); err != nil {
			return fmt.Sprintf("not a valid jq path expression (%v); Argo CD cannot build its diff normalizer and the application's comparison fails", err)
		}
	}
	return ""
}

// groupKind names a kind as group/Kind, or Kind alone for the core group.
func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return group + "/" + kind
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
