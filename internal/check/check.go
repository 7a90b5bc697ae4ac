// Package check is the use case of 'cmp-defaults check': fill objects with
// the selected profiles, dry-run each on a live cluster as filled and as
// written, and report every field where the cluster and the fill disagree.
package check

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Options of a check.
type Options struct {
	Namespace    string // of objects that have none
	FieldManager string // of the dry-run applies
	AllKinds     bool   // also check built-in kinds
}

// Object is one object's result.
type Object struct {
	report.Object
	Exists   bool              `json:"exists"`
	Filled   int               `json:"filled"`
	Skipped  string            `json:"skipped,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
	Findings []cluster.Finding `json:"findings"`
}

// Report is the result of a check.
type Report struct {
	Cluster   string             `json:"cluster"`
	Context   string             `json:"context,omitempty"`
	Version   string             `json:"version"`
	Operators []report.Selection `json:"operators"`
	Objects   []Object           `json:"objects"`
}

// Error lists the objects that could not be checked, each with why.
type Error struct{ Objects []string }

func (e *Error) Error() string {
	return fmt.Sprintf("check failed for %d object(s):\n  %s", len(e.Objects), strings.Join(e.Objects, "\n  "))
}

// Admission fills objs (in place) with e and checks each on cl. An object that
// cannot be checked is an *Error after the others ran, unless the failure
// would repeat for every object (cluster.Fatal): then the run stops there.
func Admission(ctx context.Context, cl *cluster.Client, e *defaults.Engine, res []*operators.Resolution, objs []manifest.Object, opt Options) (*Report, error) {
	raw := make([]map[string]any, len(objs))
	fills := make([]map[string]cluster.FilledField, len(objs))
	for i, ob := range objs {
		raw[i] = manifest.MapLeaves(ob.Data, func(v any) any { return v }).(map[string]any)
		err := e.FillObject(ob, func(f defaults.Filled) {
			if f.Type == "drop" { // a value removed: nothing the cluster must store
				return
			}
			if fills[i] == nil {
				fills[i] = map[string]cluster.FilledField{}
			}
			fills[i][f.Path] = cluster.FilledField{Value: f.Value, Rule: f.Rule, Origin: fmt.Sprintf("%s@%s (profile %s)", f.Origin.Operator, strings.TrimPrefix(f.Origin.Release, "v"), f.Origin.Profile)}
		})
		if err != nil {
			return nil, err
		}
	}
	rep := &Report{Cluster: cl.Host, Context: cl.Context, Version: cl.Version, Operators: report.Selections(res)}
	failed := &Error{}
	for i, ob := range objs {
		co := Object{Object: report.ObjectOf(ob), Filled: len(fills[i]), Findings: []cluster.Finding{}}
		if !opt.AllKinds && BuiltInGroup(co.APIVersion) && !e.Covers(co.APIVersion, co.Kind) {
			co.Skipped = "built-in kind (use --all-kinds to check it)"
			rep.Objects = append(rep.Objects, co)
			continue
		}
		findings, note, err := checkOne(ctx, cl, &co, ob.Data, raw[i], fills[i], opt)
		if err != nil {
			failed.Objects = append(failed.Objects, fmt.Sprintf("%s: %s: %v", ob.Where(), ob.ID(), err))
			if cluster.Fatal(err) {
				break
			}
			continue
		}
		if note != "" {
			co.Notes = append(co.Notes, note)
		}
		if findings != nil {
			co.Findings = findings
		}
		rep.Objects = append(rep.Objects, co)
	}
	if len(failed.Objects) > 0 {
		return nil, failed
	}
	return rep, nil
}

// checkOne dry-runs one object as filled and as written and compares.
func checkOne(ctx context.Context, cl *cluster.Client, co *Object, filled, raw map[string]any, fills map[string]cluster.FilledField, opt Options) ([]cluster.Finding, string, error) {
	t, err := cl.Locate(ctx, filled, opt.Namespace)
	if err != nil {
		return nil, "", err
	}
	co.Namespace, co.Exists = t.Namespace, t.Exists
	admitted, err := cl.DryRun(ctx, t, filled, opt.FieldManager)
	if err != nil {
		return nil, "", err
	}
	admittedRaw, err := cl.DryRun(ctx, t, raw, opt.FieldManager)
	if err != nil {
		return nil, "", err
	}
	note := ""
	if admitted.ApplyRejected != "" {
		note = "server-side apply rejects the filled object (Argo CD's ServerSideApply=true sync would fail): " + admitted.ApplyRejected
	}
	return cluster.Compare(filled, admitted.Object, admittedRaw.Object, fills), note, nil
}

// Differ counts the objects with findings and their findings.
func (r *Report) Differ() (objects, fields int) {
	for _, co := range r.Objects {
		if len(co.Findings) > 0 {
			objects++
			fields += len(co.Findings)
		}
	}
	return objects, fields
}

// BuiltInGroup: the apiVersion's group is one Kubernetes itself serves
// (operators.IsBuiltinGroup, the one list). Their defaults are Argo CD's
// business (it knows the built-in types); CRD groups such as
// gateway.networking.k8s.io or autoscaling.x-k8s.io are not among them.
func BuiltInGroup(apiVersion string) bool {
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group = ""
	}
	return operators.IsBuiltinGroup(group)
}

// WriteJSON writes the report as JSON.
func (rep *Report) WriteJSON(w io.Writer) error { return report.WriteJSON(w, rep) }

// WriteText writes the report for a person.
func (rep *Report) WriteText(w io.Writer) error {
	ctx := ""
	if rep.Context != "" {
		ctx = ", context " + rep.Context
	}
	fmt.Fprintf(w, "# cluster %s (Kubernetes %s%s)\n", rep.Cluster, rep.Version, ctx)
	report.WriteSelections(w, rep.Operators)
	ok, differ, skipped, fields := 0, 0, 0, 0
	for _, co := range rep.Objects {
		report.WriteHeading(w, co.Object)
		switch {
		case co.Skipped != "":
			skipped++
			fmt.Fprintf(w, "  skipped: %s\n", co.Skipped)
			continue
		case len(co.Findings) == 0:
			ok++
			fmt.Fprintf(w, "  ok: the cluster stores the filled object unchanged (%d field(s) filled, each as the cluster defaults it)\n", co.Filled)
			continue
		}
		differ++
		fields += len(co.Findings)
		for _, n := range co.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, f := range co.Findings {
			fmt.Fprintf(w, "  %s\n", findingText(f))
			if f.Rule != "" {
				fmt.Fprintf(w, "      filled by %s from %s\n", f.Rule, f.Origin)
			}
		}
	}
	fmt.Fprintf(w, "\n%d object(s): %d match the cluster, %d differ (%d field(s)), %d skipped\n", len(rep.Objects), ok, differ, fields, skipped)
	if differ == 0 {
		return nil
	}
	for _, s := range rep.Operators {
		if s.Channel != "" {
			fmt.Fprintf(w, "note: %s has the %s channel's profiles; if the cluster runs another channel's CRDs (each CRD names its channel in an annotation), select that channel's operator\n", s.Operator, s.Channel)
		}
	}
	return nil
}

func findingText(f cluster.Finding) string {
	switch f.Kind {
	case tree.Added:
		return fmt.Sprintf("+ %s = %s  the cluster adds this field: no selected profile fills it", f.Path, jsonText(f.Cluster))
	case tree.Removed:
		return fmt.Sprintf("- %s = %s  the cluster drops this field", f.Path, jsonText(f.Value))
	case tree.Changed:
		return fmt.Sprintf("~ %s = %s  the cluster stores %s", f.Path, jsonText(f.Value), jsonText(f.Cluster))
	case cluster.NotDefaulted:
		return fmt.Sprintf("! %s = %s  filled, but this cluster does not default it", f.Path, jsonText(f.Value))
	case cluster.WrongDefault:
		return fmt.Sprintf("≠ %s = %s  filled, but this cluster defaults %s", f.Path, jsonText(f.Value), jsonText(f.Cluster))
	}
	return string(f.Kind) + " " + f.Path
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
