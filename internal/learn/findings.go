package learn

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// findingSet is what a run does not learn, one Finding per kind, path and
// reason.
type findingSet map[string]*Finding

func (fs findingSet) add(f *Finding) {
	k := f.APIVersion + " " + f.Kind + " " + f.Path + " " + f.Reason
	fs[k] = f
}

// sorted lists the findings by key, their objects and values sorted.
func (fs findingSet) sorted() []Finding {
	out := []Finding{}
	for _, k := range slices.Sorted(maps.Keys(fs)) {
		f := fs[k]
		sort.Strings(f.Objects)
		sort.Strings(f.Values)
		out = append(out, *f)
	}
	return out
}

// record records a field left out of one object.
func (fs findingSet) record(o *Observation, p tree.Path, reason string, from, to any) {
	path := tree.FormatPath(generalise(p))
	k := o.APIVersion + " " + o.Kind + " " + path + " " + reason
	f := fs[k]
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
		fs[k] = f
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
func (fs findingSet) serverOwned(o *Observation) {
	md, _ := o.Runs[0]["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "generation", "managedFields", "resourceVersion", "uid"} {
		if _, ok := md[k]; !ok {
			continue
		}
		fs.server(o, tree.Path{"metadata", k}, "set by the API server on every object (identity, version, time, field ownership); Argo CD does not compare it: no rule needed")
	}
	if _, ok := o.Runs[0]["status"]; ok {
		fs.server(o, tree.Path{"status"}, "written by the API server and controllers; Argo CD ignores /status by default: no rule needed")
	}
}

func (fs findingSet) server(o *Observation, p tree.Path, why string) {
	path := p.String()
	k := o.APIVersion + " " + o.Kind + " " + path + " " + ReasonServer
	if f := fs[k]; f != nil {
		if !contains(f.Objects, o.ID) {
			f.Objects = append(f.Objects, o.ID)
		}
		return
	}
	fs[k] = &Finding{APIVersion: o.APIVersion, Kind: o.Kind, Path: path, Reason: ReasonServer, Why: why, Objects: []string{o.ID}}
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
