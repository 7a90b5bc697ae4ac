package action

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// kindCheck warns once per apiVersion and kind that a selected release
// does not serve while other checked releases of the operator do (the API
// server rejects such objects), or whose webhook writes defaults this
// release's profile does not know, or that the release stores through a
// conversion webhook (they may drift). It is the one place
// that decides about them: a warning, or with strict mode the run's error.
//
// Hints, once per API group, name the operators that have an object's kind
// when none of them is selected: the user probably forgot one. They
// are advice, never made errors by strict mode.
type kindCheck struct {
	names settings.Names // how the strict setting is named
	cmp   bool           // under Argo CD: hints name the operators parameter
	hints []string
	seen  map[string]bool
}

// check warns about objs not yet seen, or with strict fails on the first.
func (u *kindCheck) check(st *operators.Store, res []*operators.Resolution, objs []manifest.Object, strict bool, to *warn.List) error {
	ws := u.warnings(st, res, objs)
	if strict && len(ws) > 0 {
		return strictError(u.names, ws[0])
	}
	to.Add(warn.General, ws...)
	to.Add(warn.General, u.hints...)
	u.hints = nil
	return nil
}

// warnings are the warnings about objs not yet given; hints are added.
func (u *kindCheck) warnings(st *operators.Store, res []*operators.Resolution, objs []manifest.Object) []string {
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	var out []string
	for _, ob := range objs {
		av, _ := ob.Data["apiVersion"].(string)
		k, _ := ob.Data["kind"].(string)
		if u.seen[av+" "+k] {
			continue
		}
		u.seen[av+" "+k] = true
		for _, r := range res {
			if msg := r.Unserved(st, av, k); msg != "" {
				out = append(out, fmt.Sprintf("%s: %s", ob.Where(), msg))
			}
			if msg := st.UnknownWebhookMessage(r, av, k); msg != "" {
				out = append(out, fmt.Sprintf("%s: %s", ob.Where(), msg))
			}
			if msg := r.ConversionMessage(av, k); msg != "" {
				out = append(out, fmt.Sprintf("%s: %s", ob.Where(), msg))
			}
		}
		u.hint(st, res, ob, av)
	}
	return out
}

// hint adds a hint when no selected release has the kind of ob and another
// operator of st does; once per API group. It is decided by kind, not by
// group alone: argoproj.io is Argo Rollouts' group and Argo CD's, and an
// Application is no Rollout.
func (u *kindCheck) hint(st *operators.Store, res []*operators.Resolution, ob manifest.Object, apiVersion string) {
	group, _, ok := strings.Cut(apiVersion, "/")
	kind, _ := ob.Data["kind"].(string)
	if !ok || st == nil || u.seen["group "+group] {
		return
	}
	for _, r := range res {
		if r.Profile != nil && r.Profile.HasKind(group, kind) {
			return
		}
	}
	names := st.CoveringKind(group, kind)
	if len(names) == 0 {
		return
	}
	u.seen["group "+group] = true
	adds := make([]string, len(names))
	for i, n := range names {
		adds[i] = n + "@VERSION"
	}
	add := "add --operator " + strings.Join(adds, " or --operator ")
	if u.cmp {
		add = "select its release in the parameter operators (" + strings.Join(names, ": VERSION or ") + ": VERSION)"
	}
	who := "the operator " + names[0] + ", which is not selected"
	if len(names) > 1 {
		who = "the operators " + strings.Join(names, " and ") + ", none of them selected"
	}
	u.hints = append(u.hints, fmt.Sprintf("%s: %s (%s) is covered by %s, so its defaults are not filled; %s", ob.Where(), kind, group, who, add))
}

// unservedKinds compares the selected profiles with the API versions the
// cluster serves (KUBE_API_VERSIONS): a cluster that serves none of a
// release's kinds probably lacks the operator; one that lacks some of them
// may run another release. One short line per release: the group/versions
// it lacks, with how many kinds each, not every kind.
func unservedKinds(res []*operators.Resolution, apiVersions []string) []string {
	if len(apiVersions) == 0 {
		return nil
	}
	served := map[string]bool{}
	for _, v := range apiVersions {
		served[v] = true
	}
	var out []string
	for _, r := range res {
		missing, kinds := map[string]int{}, 0
		var order []string
		for _, rs := range r.Profile.Resources {
			if served[rs.APIVersion()] || served[rs.APIVersion()+"/"+rs.Kind] {
				continue
			}
			if missing[rs.APIVersion()] == 0 {
				order = append(order, rs.APIVersion())
			}
			missing[rs.APIVersion()]++
			kinds++
		}
		ref := r.Operator + "@" + strings.TrimPrefix(r.Requested, "v")
		switch {
		case kinds == 0:
		case kinds == len(r.Profile.Resources):
			out = append(out, fmt.Sprintf("the cluster serves none of the kinds of %s (KUBE_API_VERSIONS); is the operator installed there?", ref))
		default:
			sort.Strings(order)
			parts := make([]string, 0, len(order))
			for _, gv := range order {
				parts = append(parts, fmt.Sprintf("%s (%d kinds)", gv, missing[gv]))
			}
			if len(parts) > 3 {
				parts = append(parts[:3], fmt.Sprintf("%d more", len(parts)-3))
			}
			out = append(out, fmt.Sprintf("the cluster (KUBE_API_VERSIONS) does not serve %d of the %d kinds of %s: %s; does it run another release?", kinds, len(r.Profile.Resources), ref, strings.Join(parts, ", ")))
		}
	}
	return out
}
