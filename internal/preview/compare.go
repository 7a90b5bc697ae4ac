package preview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Build compares the Applications of the two sides, matched by their keys
// (namespace/name).
func Build(base, head Revision, baseApps, headApps map[string]*Side) *Report {
	r := &Report{APIVersion: APIVersion, Base: base, Head: head, Apps: []*App{}}
	keys := map[string]bool{}
	for k := range baseApps {
		keys[k] = true
	}
	for k := range headApps {
		keys[k] = true
	}
	for k := range keys {
		r.Apps = append(r.Apps, compareApp(baseApps[k], headApps[k]))
	}
	sortApps(r.Apps)
	r.count()
	return r
}

func compareApp(b, h *Side) *App {
	s := h
	if s == nil {
		s = b
	}
	a := &App{Kind: s.App.Origin.Kind, Name: s.App.Origin.Name, Namespace: AppNamespace(s.App), File: s.App.Origin.File,
		Parent: s.Parent, Operators: s.Operators, Resources: []*Resource{}}
	switch {
	case h != nil && h.NotEvaluated != "":
		a.Change, a.PredictedSync = NotEvaluated, Unknown
		a.Reasons = append(a.Reasons, h.NotEvaluated)
		return a
	case h == nil:
		a.Change = Removed
		a.Reasons = append(a.Reasons, "the Application is removed: Argo CD deletes its resources only when it has the resources-finalizer")
		return a
	case h.Err != nil || (b != nil && b.Err != nil):
		a.Change, a.PredictedSync = Failed, Unknown
		for _, side := range []struct {
			name string
			s    *Side
		}{{"base", b}, {"head", h}} {
			if side.s != nil && side.s.Err != nil {
				a.Reasons = append(a.Reasons, side.name+": "+side.s.Err.Error())
			}
		}
		return a
	}
	var before []Object
	if b != nil {
		before = b.Objects
		a.SpecChanged = !tree.Equal(b.Data, h.Data)
	}
	a.Resources = compareObjects(before, h.Objects, h.Rules, h.AutoPrune)
	switch {
	case b == nil:
		a.Change = Added
	case len(a.Resources) > 0 || a.SpecChanged:
		a.Change = Modified
	default:
		a.Change = Unchanged
	}
	if len(h.Objects) == 0 && len(h.Unrendered) > 0 {
		a.Change = NotEvaluated
	}
	if a.Kind == "ApplicationSet" {
		return a // it is not synced; its Applications are
	}
	a.PredictedSync, a.Drift, a.Reasons = predict(h)
	return a
}

// AppNamespace is the namespace of an Application: metadata.namespace,
// else argocd (where Argo CD looks for Applications).
func AppNamespace(app *argocd.App) string {
	if app.Origin.Namespace != "" {
		return app.Origin.Namespace
	}
	return "argocd"
}

// compareObjects lists the resources that differ between base and head.
func compareObjects(base, head []Object, rules []*argocd.Rule, autoPrune bool) []*Resource {
	index := func(objs []Object) (map[string]*Object, []string) {
		m, order := map[string]*Object{}, []string{}
		for i := range objs {
			k := objs[i].key()
			if _, dup := m[k]; !dup {
				order = append(order, k)
			}
			m[k] = &objs[i]
		}
		return m, order
	}
	bm, border := index(base)
	hm, horder := index(head)
	out := []*Resource{}
	for _, k := range horder {
		h, b := hm[k], bm[k]
		switch {
		case b == nil:
			out = append(out, resource(nil, h, Added, rules))
		case !tree.Equal(b.Data, h.Data):
			out = append(out, resource(b, h, Modified, rules))
		}
	}
	for _, k := range border {
		if hm[k] == nil {
			res := resource(bm[k], nil, Removed, rules)
			res.Prune = pruneOf(bm[k].Data, autoPrune)
			out = append(out, res)
		}
	}
	slices.SortStableFunc(out, func(x, y *Resource) int { return strings.Compare(x.sortKey(), y.sortKey()) })
	return out
}

func (r *Resource) sortKey() string {
	return r.Group + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

func resource(b, h *Object, c Change, rules []*argocd.Rule) *Resource {
	s := h
	if s == nil {
		s = b
	}
	g, k := argocd.GroupKind(s.Data)
	av, _ := s.Data["apiVersion"].(string)
	_, v, _ := strings.Cut(av, "/")
	if v == "" {
		v = av
	}
	r := &Resource{Group: g, Version: v, Kind: k, Namespace: s.Namespace, Name: argocd.Meta(s.Data, "name"),
		Change: c, Filled: []Field{}, Hidden: []Field{}, Hook: hookOf(s.Data)}
	for _, f := range s.Filled {
		r.Filled = append(r.Filled, Field{Path: f.Path, Value: f.Value, Rule: f.Rule, Type: f.Type})
	}
	var from, to map[string]any
	if b != nil {
		from = b.Data
	}
	if h != nil {
		to = h.Data
	}
	if isSecret(s.Data) {
		r.Redacted = true
		r.Filled = []Field{}
	} else {
		r.Diff = unified(from, to)
	}
	if c != Modified {
		return r
	}
	changes := tree.Diff(from, to)
	ign := append(ignored(rules, from), ignored(rules, to)...)
	seen := map[string]bool{}
	for _, ch := range changes {
		if by := coveredBy(ign, ch.Path); by != "" && !seen[ch.Path.String()] {
			seen[ch.Path.String()] = true
			r.Hidden = append(r.Hidden, Field{Path: ch.Path.String(), Rule: by})
		}
		// A hook is created anew on every sync: none of its fields is an update.
		if p := immutable(from, ch.Path); p != "" && r.Hook == "" && !slices.Contains(r.Immutable, p) {
			r.Immutable = append(r.Immutable, p)
		}
	}
	return r
}

// unified is a unified diff of two objects as YAML ("" for a missing side).
func unified(from, to map[string]any) string {
	text := func(o map[string]any) []string {
		if o == nil {
			return nil
		}
		b, err := yaml.Marshal(o)
		if err != nil {
			return []string{fmt.Sprintf("# cannot encode: %v\n", err)}
		}
		lines := strings.SplitAfter(string(b), "\n")
		return lines[:len(lines)-1] // after the last line break: nothing

	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: text(from), B: text(to), FromFile: "base", ToFile: "head", Context: 3})
	if err != nil {
		return fmt.Sprintf("# cannot diff: %v\n", err)
	}
	return d
}

// ignoredPath is a field an ignoreDifferences rule ignores on an object.
type ignoredPath struct {
	path tree.Path
	rule string
}

// ignored lists the fields of obj the rules ignore, as Argo CD's ignore
// normalizer evaluates them (a rule that fails on obj ignores nothing).
// managedFieldsManagers depend on the live object and are not evaluated.
func ignored(rules []*argocd.Rule, obj map[string]any) []ignoredPath {
	if obj == nil {
		return nil
	}
	var out []ignoredPath
	var doc map[string]any
	for _, r := range rules {
		if !r.Matches(obj) {
			continue
		}
		if doc == nil {
			var err error
			if doc, err = argocd.JSONDoc(obj); err != nil {
				return nil
			}
		}
		for _, ptr := range r.JSONPointers {
			if p, ok, err := argocd.Pointer(doc, ptr); err == nil && ok {
				out = append(out, ignoredPath{p, fmt.Sprintf("%s: jsonPointer %s", r.Origin, ptr)})
			}
		}
		for _, expr := range r.JQPathExpressions {
			q, err := argocd.CompileJQ(expr)
			if err != nil {
				continue
			}
			ps, err := q.Paths(doc)
			if err != nil {
				continue
			}
			for _, p := range ps {
				out = append(out, ignoredPath{p, fmt.Sprintf("%s: jqPathExpression %s", r.Origin, expr)})
			}
		}
	}
	return out
}

// coveredBy names the rule that ignores p (p or a parent of it), "" when
// none does.
func coveredBy(ign []ignoredPath, p tree.Path) string {
	for _, i := range ign {
		if p.HasPrefix(i.path) {
			return i.rule
		}
	}
	return ""
}

// immutableFields are the fields of built-in kinds whose change the API
// server refuses on update (the object must be replaced): group/kind ->
// field paths.
var immutableFields = map[string][]tree.Path{
	"apps/Deployment":                              {{"spec", "selector"}},
	"apps/ReplicaSet":                              {{"spec", "selector"}},
	"apps/DaemonSet":                               {{"spec", "selector"}},
	"apps/StatefulSet":                             {{"spec", "selector"}, {"spec", "volumeClaimTemplates"}, {"spec", "serviceName"}, {"spec", "podManagementPolicy"}},
	"batch/Job":                                    {{"spec", "selector"}, {"spec", "template"}, {"spec", "completionMode"}},
	"/Service":                                     {{"spec", "clusterIP"}, {"spec", "clusterIPs"}},
	"/PersistentVolumeClaim":                       {{"spec", "accessModes"}, {"spec", "storageClassName"}, {"spec", "volumeName"}, {"spec", "volumeMode"}, {"spec", "selector"}},
	"storage.k8s.io/StorageClass":                  {{"provisioner"}, {"parameters"}, {"reclaimPolicy"}, {"volumeBindingMode"}},
	"rbac.authorization.k8s.io/RoleBinding":        {{"roleRef"}},
	"rbac.authorization.k8s.io/ClusterRoleBinding": {{"roleRef"}},
}

// immutable names the immutable field of obj (the base side) that a change
// at p touches, "" when p is mutable.
func immutable(obj map[string]any, p tree.Path) string {
	g, k := argocd.GroupKind(obj)
	paths := immutableFields[g+"/"+k]
	if g == "" && (k == "ConfigMap" || k == "Secret") && obj["immutable"] == true {
		paths = []tree.Path{{"data"}, {"binaryData"}, {"stringData"}}
	}
	for _, f := range paths {
		if p.HasPrefix(f) {
			return f.String()
		}
	}
	return ""
}

// predict says which sync status head's Application will have: OutOfSync
// when admission adds a field it neither applies nor ignores, Unknown when
// what admission adds is not known (or a source is not rendered), else
// Synced. Hooks are left out, as Argo CD leaves them out of the status.
func predict(h *Side) (Sync, []Field, []string) {
	var drift []Field
	reasons := slices.Clone(h.Unrendered)
	for _, o := range h.Objects {
		if hookOf(o.Data) != "" {
			continue
		}
		if o.Unknown != "" {
			reasons = append(reasons, o.Unknown)
		}
		if o.InGit || len(o.Filled) == 0 {
			continue
		}
		ign := ignored(h.Rules, o.Data)
		for _, f := range o.Filled {
			p, err := tree.ParseConcrete(f.Path)
			if err == nil && coveredBy(ign, p) != "" {
				continue
			}
			g, k := argocd.GroupKind(o.Data)
			drift = append(drift, Field{Path: f.Path, Value: f.Value, Rule: f.Rule, Type: f.Type,
				Resource: strings.TrimPrefix(g+"/", "/") + k + " " + name(o)})
		}
	}
	slices.Sort(reasons)
	reasons = slices.Compact(reasons)
	switch {
	case len(drift) > 0:
		return OutOfSync, drift, reasons
	case len(reasons) > 0:
		return Unknown, nil, reasons
	}
	return Synced, nil, nil
}

// name is namespace/name, or name for a cluster-scoped object.
func name(o Object) string {
	if o.Namespace != "" {
		return o.Namespace + "/" + argocd.Meta(o.Data, "name")
	}
	return argocd.Meta(o.Data, "name")
}
