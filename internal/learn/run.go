package learn

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Input is one object to learn from: as written, filled with the selected
// profiles. Skipped (a reason) leaves it out of the dry runs.
type Input struct {
	Object  manifest.Object
	Skipped string
}

// Object is one object's line in the report.
type Object struct {
	ID      string `json:"id"`
	Where   string `json:"where"`
	Exists  bool   `json:"exists,omitempty"`
	Skipped string `json:"skipped,omitempty"`
}

// Report is what a learning run did: the provenance, the objects, the
// rules learned and what was left out.
type Report struct {
	Operator   string            `json:"operator"`
	Version    string            `json:"version"`
	Learned    operators.Learned `json:"learned"`
	Objects    []Object          `json:"objects"`
	Rules      []Rule            `json:"rules"`
	Rewrites   []Rewrite         `json:"rewrites,omitempty"`
	NotLearned []Finding         `json:"notLearned"`
	// NotRelearned: with --as naming a release, the fields (apiVersion,
	// kind, path) its own mutations fill that no learned rule fills.
	NotRelearned []string `json:"notRelearned,omitempty"`
}

// Observe dry-runs every input twice against the cluster (see
// Observation.Runs); errors are gathered per object, as 'check' does, and
// stop the run at once when the cluster is unreachable or rejects the
// credentials.
func Observe(ctx context.Context, cl, second *cluster.Client, ins []Input, namespace, fieldManager string) ([]Observation, []Object, error) {
	var obs []Observation
	var objs []Object
	var errs []string
	for _, in := range ins {
		ob := in.Object
		av, _ := ob.Data["apiVersion"].(string)
		kind, _ := ob.Data["kind"].(string)
		md, _ := ob.Data["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		ns, _ := md["namespace"].(string)
		ro := Object{Where: fmt.Sprintf("%s: document %d (line %d)", ob.Source, ob.Doc, ob.Line), Skipped: in.Skipped}
		if in.Skipped != "" {
			ro.ID = objectID(kind, ns, name)
			objs = append(objs, ro)
			continue
		}
		fail := func(err error) bool {
			errs = append(errs, fmt.Sprintf("%s: %s: %v", ob.Where(), ob.ID(), err))
			return cluster.Fatal(err)
		}
		t, err := cl.Locate(ctx, ob.Data, namespace)
		if err != nil {
			if fail(err) {
				break
			}
			continue
		}
		ro.ID, ro.Exists = objectID(kind, t.Namespace, t.Name), t.Exists
		o := Observation{ID: ro.ID, APIVersion: av, Kind: kind, Exists: t.Exists, Sent: ob.Data}
		first, err := cl.DryRunApply(ctx, t, ob.Data, fieldManager)
		var sec *cluster.Admission
		if err == nil {
			sec, err = second.DryRun(ctx, t, ob.Data, fieldManager)
		}
		if err != nil {
			if fail(err) {
				break
			}
			continue
		}
		if first.ApplyRejected != "" {
			errs = append(errs, fmt.Sprintf("%s: %s: server-side apply rejects the object (Argo CD's ServerSideApply=true sync would fail): %s", ob.Where(), ob.ID(), first.ApplyRejected))
			continue
		}
		o.Runs = [2]map[string]any{first.Object, sec.Object}
		obs = append(obs, o)
		objs = append(objs, ro)
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("learning failed for %d object(s):\n  %s", len(errs), strings.Join(errs, "\n  "))
	}
	return obs, objs, nil
}

func objectID(kind, ns, name string) string {
	if ns != "" {
		return kind + " " + ns + "/" + name
	}
	return kind + " " + name
}

// Profile builds the profile of the learned rules: one resource per kind,
// rules sorted by path, the provenance in 'learned'.
func Profile(operator, version string, res *Result, prov operators.Learned) *operators.Profile {
	p := &operators.Profile{APIVersion: operators.APIVersion, Kind: operators.KindProfile, Operator: operator, Version: version, Learned: &prov}
	ctx := ""
	if prov.Context != "" {
		ctx = " (context " + prov.Context + ")"
	}
	p.Description = fmt.Sprintf("Mutating-admission defaults of the cluster at %s%s, learned by 'cmp-defaults profiles learn' from server-side dry runs of %d object(s).", prov.Cluster, ctx, prov.Objects)
	idx := map[string]int{}
	// resource is the index of the kind's entry, added on first use.
	resource := func(apiVersion, kind string) int {
		key := apiVersion + " " + kind
		i, ok := idx[key]
		if !ok {
			group, version := "", apiVersion
			if j := strings.LastIndex(apiVersion, "/"); j >= 0 {
				group, version = apiVersion[:j], apiVersion[j+1:]
			}
			p.Resources = append(p.Resources, operators.Resource{Group: group, Version: version, Kind: kind})
			i = len(p.Resources) - 1
			idx[key] = i
		}
		return i
	}
	for _, r := range res.Rules {
		i := resource(r.APIVersion, r.Kind)
		reason := fmt.Sprintf("learned: admission added it to %d field(s) in %d object(s)", r.Fields, r.Objects)
		switch {
		case r.Insert != "":
			reason = fmt.Sprintf("learned: admission inserted it %s into %d list(s) in %d object(s) that had no entry with its %s", r.Insert, r.Fields, r.Objects, r.Key)
		case r.Drop:
			reason = fmt.Sprintf("learned: admission dropped this zero value from %d field(s) in %d object(s) (its Go type omits it; absent reads the same)", r.Fields, r.Objects)
		}
		p.Resources[i].Mutations = append(p.Resources[i].Mutations, operators.Mutation{
			Path: r.Path, When: r.When, Value: r.Value, Format: r.Format, Insert: r.Insert, Key: r.Key, Drop: r.Drop,
			Reason: reason,
		})
	}
	for _, r := range res.Rewrites {
		i := resource(r.APIVersion, r.Kind)
		p.Resources[i].Rewrites = append(p.Resources[i].Rewrites, operators.Rewrite{
			Path: r.Path, When: r.When, From: r.From, To: r.To,
			Reason: fmt.Sprintf("learned: admission stored %s for the %s written in %d field(s) in %d object(s)", jsonText(r.To), jsonText(r.From), r.Fields, r.Objects),
		})
	}
	operators.SortResources(p.Resources)
	return p
}

// WriteText writes the report for people.
func (rep *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "# %s@%s %s\n", rep.Operator, strings.TrimPrefix(rep.Version, "v"), rep.Learned.String())
	skipped := 0
	for _, o := range rep.Objects {
		if o.Skipped != "" {
			skipped++
			fmt.Fprintf(w, "  skipped %s (%s): %s\n", o.ID, o.Where, o.Skipped)
		}
	}
	fmt.Fprintf(w, "\nLearned %d rule(s):\n", len(rep.Rules))
	for _, r := range rep.Rules {
		when := ""
		if r.When != "" {
			when = "  when " + r.When
		}
		value := " = " + jsonText(r.Value)
		switch {
		case r.Format != "":
			value = " = " + r.Format + " (per item)"
		case r.Insert != "":
			value = " += " + jsonText(r.Value) + " (inserted " + r.Insert + " unless an entry has its " + r.Key + ")"
		case r.Drop:
			value = " == " + jsonText(r.Value) + " dropped"
		}
		fmt.Fprintf(w, "  %s %s  %s%s%s  (%d field(s), %d object(s))\n", r.APIVersion, r.Kind, r.Path, value, when, r.Fields, r.Objects)
	}
	if len(rep.Rewrites) > 0 {
		fmt.Fprintf(w, "\nRewrites (%d): values admission replaces where they are written; never filled, fill warns:\n", len(rep.Rewrites))
		for _, r := range rep.Rewrites {
			when := ""
			if r.When != "" {
				when = "  when " + r.When
			}
			fmt.Fprintf(w, "  %s %s  %s: %s stored as %s%s  (%d field(s), %d object(s))\n", r.APIVersion, r.Kind, r.Path, jsonText(r.From), jsonText(r.To), when, r.Fields, r.Objects)
		}
	}
	if rep.Learned.Overrides != "" {
		fmt.Fprintf(w, "\nThe profile overrides %s: its CRD schema defaults, and these rules in place of its mutations.\n", rep.Learned.Overrides)
		if len(rep.NotRelearned) > 0 {
			fmt.Fprintf(w, "It no longer fills %d field(s) the release's own mutations fill (no input showed admission adding them; learn from inputs that lack them, e.g. the seeds and --vary file of docs/webhooks.md, if your webhook still does):\n", len(rep.NotRelearned))
			for _, f := range rep.NotRelearned {
				fmt.Fprintf(w, "  %s\n", f)
			}
		}
	}
	if len(rep.NotLearned) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nNot learned (%d):\n", len(rep.NotLearned))
	// Server-owned fields: one line per kind, they need nothing.
	owned := map[string][]string{}
	var kinds []string
	for _, f := range rep.NotLearned {
		if f.Reason == ReasonServer {
			k := f.APIVersion + " " + f.Kind
			if owned[k] == nil {
				kinds = append(kinds, k)
			}
			owned[k] = append(owned[k], f.Path)
		}
	}
	for _, k := range kinds {
		fmt.Fprintf(w, "  %s  %s  [%s]: set by the API server or controllers; Argo CD does not compare them, no rule needed\n", k, strings.Join(owned[k], ", "), ReasonServer)
	}
	for _, f := range rep.NotLearned {
		if f.Reason == ReasonServer {
			continue
		}
		fmt.Fprintf(w, "  %s %s  %s  [%s]\n", f.APIVersion, f.Kind, f.Path, f.Reason)
		fmt.Fprintf(w, "      why: %s\n", f.Why)
		if len(f.Values) > 0 {
			fmt.Fprintf(w, "      seen: %s\n", strings.Join(f.Values, "; "))
		}
		if len(f.Objects) > 0 {
			fmt.Fprintf(w, "      objects: %s\n", shortList(f.Objects, 3))
		}
		if f.Ignore != nil {
			b, _ := json.Marshal(f.Ignore.JQPathExpressions)
			fmt.Fprintf(w, "      ignoreDifferences: [{group: %q, kind: %s, jqPathExpressions: %s}]\n", f.Ignore.Group, f.Ignore.Kind, b)
		}
		if f.Fix != "" {
			fmt.Fprintf(w, "      fix: %s\n", f.Fix)
		}
	}
	return nil
}

func shortList(l []string, n int) string {
	if len(l) <= n {
		return strings.Join(l, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(l[:n], ", "), len(l)-n)
}
