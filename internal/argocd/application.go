// Package argocd is what cmp-defaults knows of Argo CD: the Application,
// ApplicationSet and argocd-cm objects it reads (their ignoreDifferences
// rules and the Application's source), how Argo CD hands such a source to a
// renderer (Helm settings, the CMP server's environment for a plugin), and
// an imitation of Argo CD's ignore normalizer
// (util/argo/normalizers/diff_normalizer.go): group and kind are globs,
// name and namespace match exactly when set, jqPathExpressions are deleted
// with del(expr) and jsonPointers are removed with a JSON patch "remove"
// operation.
package argocd

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// Origin says where a rule was written.
type Origin struct {
	Kind      string `json:"kind"` // Application, ApplicationSet or ConfigMap
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	// Field locates the rule inside the object, e.g.
	// spec.ignoreDifferences[0] or
	// data["resource.customizations.ignoreDifferences.apps_Deployment"].
	Field string `json:"field"`
}

func (o Origin) String() string {
	name := o.Name
	if o.Namespace != "" {
		name = o.Namespace + "/" + name
	}
	return fmt.Sprintf("%s %s, %s (%s:%d)", o.Kind, name, o.Field, o.File, o.Line)
}

// Rule is one ignoreDifferences entry, decoded as Argo CD decodes it, and
// where it was written.
type Rule struct {
	Origin                Origin   `json:"-"` // set by the reader, not decoded
	Group                 string   `json:"group"`
	Kind                  string   `json:"kind"`
	Name                  string   `json:"name,omitempty"`
	Namespace             string   `json:"namespace,omitempty"`
	JSONPointers          []string `json:"jsonPointers,omitempty"`
	JQPathExpressions     []string `json:"jqPathExpressions,omitempty"`
	ManagedFieldsManagers []string `json:"managedFieldsManagers,omitempty"`

	// DefaultNamespace is the Application's destination namespace: Argo CD
	// puts namespaced objects without metadata.namespace there before it
	// compares, so a rule's namespace is matched against it.
	DefaultNamespace string `json:"-"`
	// App is the Application the rule belongs to; nil for argocd-cm's.
	App *App `json:"-"`
}

// Target says what the rule selects, as a person reads it.
func (r *Rule) Target() string {
	var b strings.Builder
	g := r.Group
	if g == "" {
		g = `"" (core)`
	}
	fmt.Fprintf(&b, "group %s, kind %s", g, r.Kind)
	if r.Name != "" {
		fmt.Fprintf(&b, ", name %s", r.Name)
	}
	if r.Namespace != "" {
		fmt.Fprintf(&b, ", namespace %s", r.Namespace)
	}
	return b.String()
}

var knownEntryField = map[string]bool{"group": true, "kind": true, "name": true, "namespace": true, "jsonPointers": true, "jqPathExpressions": true, "managedFieldsManagers": true}

// Found is what Extract read.
type Found struct {
	Rules []*Rule
	// Apps counts Applications and ApplicationSets read.
	Apps int
	// ConfigMaps counts argocd-cm ConfigMaps read.
	ConfigMaps int
	// Warnings are things that were skipped, for stderr.
	Warnings []string
	// Applications are the Applications and ApplicationSet templates read,
	// in order, with their sources, for rendering.
	Applications []*App
}

// App is one Application or ApplicationSet template: where it was
// written, and its sources (spec.source, or every entry of spec.sources).
type App struct {
	Origin    Origin // Field is its spec: spec, or spec.template.spec
	Namespace string // destination namespace
	Project   string // spec.project
	Sources   []Source
	// Object is the Application or ApplicationSet as written.
	Object map[string]any
}

// Source is the part of an Application's source that rendering needs.
type Source struct {
	Where     string // file, document and the Application or ApplicationSet, for messages
	Field     string // where the source is in it: spec.source, spec.sources[1], spec.template.spec.source
	App       string
	Namespace string // destination namespace
	RepoURL   string
	Path      string
	Chart     string // a chart of a Helm repository: a remote source
	Project   string // the Application's spec.project
	// TargetRevision is the source's targetRevision: for a chart source its
	// version or a semver constraint.
	TargetRevision string
	Ref            string // a multi-source app's name for this source's files ($ref/...)
	ReleaseName    string
	ValueFiles     []string
	Values         string
	Parameters     []HelmParameter
	// SkipSchemaValidation is spec.source.helm.skipSchemaValidation.
	SkipSchemaValidation bool
	// The rest of spec.source.helm that changes what helm renders.
	FileParameters          []HelmFileParameter
	IgnoreMissingValueFiles bool
	SkipCRDs                bool
	SkipTests               bool
	HelmNamespace           string   // helm.namespace: the release namespace instead of the destination's
	KubeVersion             string   // helm.kubeVersion: instead of the cluster's
	APIVersions             []string // helm.apiVersions: instead of the cluster's
	Include                 string
	Exclude                 string
	// KustomizeSpec is spec.source.kustomize as written.
	KustomizeSpec map[string]any
	// Kustomize lists the spec.source.kustomize settings given, which
	// audit does not apply.
	Kustomize []string
	// Plugin is set when the source names the cmp-defaults plugin: audit
	// then renders it exactly as generate does.
	Plugin *Plugin
	// OtherPlugin names another config management plugin.
	OtherPlugin string
}

// HelmFileParameter is spec.source.helm.fileParameters[]: helm --set-file.
type HelmFileParameter struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// HelmParameter is spec.source.helm.parameters[].
type HelmParameter struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	ForceString bool   `json:"forceString,omitempty"`
}

// IsArgoCDCM reports whether obj is the argocd-cm ConfigMap.
func IsArgoCDCM(o manifest.Object) bool {
	av, _ := o.Data["apiVersion"].(string)
	k, _ := o.Data["kind"].(string)
	return av == "v1" && k == "ConfigMap" && Meta(o.Data, "name") == "argocd-cm"
}

// Extract reads ignoreDifferences rules from Applications, ApplicationSets
// and argocd-cm ConfigMaps; other objects are skipped.
func Extract(objs []manifest.Object) (*Found, error) {
	f := &Found{}
	for _, o := range objs {
		av, _ := o.Data["apiVersion"].(string)
		k, _ := o.Data["kind"].(string)
		switch {
		case strings.HasPrefix(av, "argoproj.io/") && k == "Application":
			f.Apps++
			spec, _ := o.Data["spec"].(map[string]any)
			if err := f.addApp(o, spec, "spec", false); err != nil {
				return nil, err
			}
		case strings.HasPrefix(av, "argoproj.io/") && k == "ApplicationSet":
			f.Apps++
			spec, _ := o.Data["spec"].(map[string]any)
			tmpl, _ := spec["template"].(map[string]any)
			tspec, _ := tmpl["spec"].(map[string]any)
			if _, ok := spec["templatePatch"]; ok {
				f.Warnings = append(f.Warnings, fmt.Sprintf("%s: ApplicationSet %s uses templatePatch; ignoreDifferences set there are not read", o.Where(), Meta(o.Data, "name")))
			}
			if err := f.addApp(o, tspec, "spec.template.spec", true); err != nil {
				return nil, err
			}
		case IsArgoCDCM(o):
			if err := f.AddConfigMap(o); err != nil {
				return nil, err
			}
		}
	}
	return f, nil
}

func Meta(obj map[string]any, key string) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md[key].(string)
	return s
}

func templated(s string) bool { return strings.Contains(s, "{{") }

func (f *Found) addApp(o manifest.Object, spec map[string]any, field string, isSet bool) error {
	origin := Origin{Kind: "Application", Name: Meta(o.Data, "name"), Namespace: Meta(o.Data, "namespace"), File: o.Source, Line: o.Line}
	if isSet {
		origin.Kind = "ApplicationSet"
	}
	dest, _ := spec["destination"].(map[string]any)
	destNS, _ := dest["namespace"].(string)
	if templated(destNS) {
		destNS = ""
	}
	project, _ := spec["project"].(string)
	app := &App{Origin: origin, Namespace: destNS, Project: project, Object: o.Data}
	app.Origin.Field = field
	f.Applications = append(f.Applications, app)
	if err := app.addSources(spec, fmt.Sprintf("%s: %s %s", o.Where(), origin.Kind, origin.Name), field); err != nil {
		return fmt.Errorf("%s: %s %s: %v", o.Where(), origin.Kind, origin.Name, err)
	}
	raw, ok := spec["ignoreDifferences"]
	if !ok || raw == nil {
		return nil
	}
	var entries []Rule
	if err := convert(raw, &entries); err != nil {
		return fmt.Errorf("%s: %s %s: %s.ignoreDifferences: %v", o.Where(), origin.Kind, origin.Name, field, err)
	}
	for i := range entries {
		if m, ok := asList(raw)[i].(map[string]any); ok {
			for k := range m {
				if !knownEntryField[k] {
					f.Warnings = append(f.Warnings, fmt.Sprintf("%s: %s %s: %s.ignoreDifferences[%d]: unknown field %q (Argo CD drops it)", o.Where(), origin.Kind, origin.Name, field, i, k))
				}
			}
		}
		r := &entries[i]
		r.Origin, r.DefaultNamespace, r.App = origin, destNS, app
		r.Origin.Field = fmt.Sprintf("%s.ignoreDifferences[%d]", field, i)
		f.Rules = append(f.Rules, r)
	}
	return nil
}

// addSources reads spec.source, or each entry of spec.sources.
func (a *App) addSources(spec map[string]any, where, field string) error {
	if src, _ := spec["source"].(map[string]any); src != nil {
		return a.addSource(src, where, field+".source")
	}
	for i, v := range asList(spec["sources"]) {
		src, _ := v.(map[string]any)
		if src == nil {
			return fmt.Errorf("%s.sources[%d] is not an object", field, i)
		}
		if err := a.addSource(src, where, fmt.Sprintf("%s.sources[%d]", field, i)); err != nil {
			return err
		}
	}
	return nil
}

func (a *App) addSource(src map[string]any, where, field string) error {
	s := Source{App: a.Origin.Name, Namespace: a.Namespace, Project: a.Project, Where: where, Field: field}
	s.RepoURL, _ = src["repoURL"].(string)
	s.Path, _ = src["path"].(string)
	s.Chart, _ = src["chart"].(string)
	s.TargetRevision, _ = src["targetRevision"].(string)
	s.Ref, _ = src["ref"].(string)
	if h, _ := src["helm"].(map[string]any); h != nil {
		s.ReleaseName, _ = h["releaseName"].(string)
		for _, v := range asList(h["valueFiles"]) {
			if vs, ok := v.(string); ok {
				s.ValueFiles = append(s.ValueFiles, vs)
			}
		}
		s.Values, _ = h["values"].(string)
		if vo, ok := h["valuesObject"]; ok && vo != nil {
			if b, err := yaml.Marshal(vo); err == nil {
				s.Values = string(b)
			}
		}
		_ = convert(h["parameters"], &s.Parameters)
		s.SkipSchemaValidation, _ = h["skipSchemaValidation"].(bool)
		_ = convert(h["fileParameters"], &s.FileParameters)
		s.IgnoreMissingValueFiles, _ = h["ignoreMissingValueFiles"].(bool)
		s.SkipCRDs, _ = h["skipCrds"].(bool)
		s.SkipTests, _ = h["skipTests"].(bool)
		s.HelmNamespace, _ = h["namespace"].(string)
		s.KubeVersion, _ = h["kubeVersion"].(string)
		_ = convert(h["apiVersions"], &s.APIVersions)
	}
	if d, _ := src["directory"].(map[string]any); d != nil {
		s.Include, _ = d["include"].(string)
		s.Exclude, _ = d["exclude"].(string)
	}
	if k, _ := src["kustomize"].(map[string]any); len(k) > 0 {
		s.KustomizeSpec = k
		for key := range k {
			s.Kustomize = append(s.Kustomize, key)
		}
		sort.Strings(s.Kustomize)
	}
	if pl, _ := src["plugin"].(map[string]any); pl != nil {
		name, _ := pl["name"].(string)
		if name == "cmp-defaults" || strings.HasPrefix(name, "cmp-defaults-") {
			app := &Plugin{Env: map[string]string{}}
			if err := convert(pl["parameters"], &app.Parameters); err != nil {
				return fmt.Errorf("%s.plugin.parameters: %v", field, err)
			}
			var env []struct{ Name, Value string }
			if err := convert(pl["env"], &env); err != nil {
				return fmt.Errorf("%s.plugin.env: %v", field, err)
			}
			for _, e := range env {
				app.Env[e.Name] = e.Value
			}
			s.Plugin = app
		} else {
			s.OtherPlugin = name
			if name == "" {
				s.OtherPlugin = "(discovered)"
			}
		}
	}
	a.Sources = append(a.Sources, s)
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// overrideIgnoreDiff is the YAML value of an ignoreDifferences customization.
type overrideIgnoreDiff struct {
	JSONPointers          []string `json:"jsonPointers"`
	JQPathExpressions     []string `json:"jqPathExpressions"`
	ManagedFieldsManagers []string `json:"managedFieldsManagers"`
}

const customizationsKey = "resource.customizations"

// AddConfigMap reads the rules of an argocd-cm ConfigMap:
// resource.customizations.ignoreDifferences.<group_kind> keys (and "all"),
// and the older single resource.customizations key, the way Argo CD's
// settings manager does.
func (f *Found) AddConfigMap(o manifest.Object) error {
	f.ConfigMaps++
	data, _ := o.Data["data"].(map[string]any)
	origin := Origin{Kind: "ConfigMap", Name: Meta(o.Data, "name"), Namespace: Meta(o.Data, "namespace"), File: o.Source, Line: o.Line}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	add := func(field, overrideKey string, v overrideIgnoreDiff) {
		if len(v.JSONPointers) == 0 && len(v.JQPathExpressions) == 0 && len(v.ManagedFieldsManagers) == 0 {
			return
		}
		if overrideKey == "all" {
			overrideKey = "*/*"
		}
		group, kind := "", overrideKey
		if g, k, ok := strings.Cut(overrideKey, "/"); ok {
			group, kind = g, k
		}
		r := &Rule{Group: group, Kind: kind, JSONPointers: v.JSONPointers, JQPathExpressions: v.JQPathExpressions, ManagedFieldsManagers: v.ManagedFieldsManagers}
		r.Origin = origin
		r.Origin.Field = field
		f.Rules = append(f.Rules, r)
	}
	for _, k := range keys {
		val, _ := data[k].(string)
		field := fmt.Sprintf("data[%q]", k)
		if k == customizationsKey {
			// resource.customizations: a YAML map of "group/kind" to
			// overrides whose ignoreDifferences is itself a YAML string.
			var all map[string]struct {
				IgnoreDifferences string `json:"ignoreDifferences"`
			}
			if err := yaml.Unmarshal([]byte(val), &all); err != nil {
				return fmt.Errorf("%s: argocd-cm %s: %v", o.Where(), field, err)
			}
			gks := make([]string, 0, len(all))
			for gk := range all {
				gks = append(gks, gk)
			}
			sort.Strings(gks)
			for _, gk := range gks {
				var v overrideIgnoreDiff
				if err := yaml.Unmarshal([]byte(all[gk].IgnoreDifferences), &v); err != nil {
					return fmt.Errorf("%s: argocd-cm %s: %s.ignoreDifferences: %v", o.Where(), field, gk, err)
				}
				add(fmt.Sprintf("%s[%q].ignoreDifferences", field, gk), gk, v)
			}
			continue
		}
		// resource.customizations.<type>.<group_kind>
		parts := strings.SplitN(k, ".", 4)
		if len(parts) < 4 || parts[0]+"."+parts[1] != customizationsKey || parts[2] != "ignoreDifferences" {
			continue
		}
		key, err := overrideKey(parts[3])
		if err != nil {
			return fmt.Errorf("%s: argocd-cm %s: %v", o.Where(), field, err)
		}
		var v overrideIgnoreDiff
		if err := yaml.Unmarshal([]byte(val), &v); err != nil {
			return fmt.Errorf("%s: argocd-cm %s: %v", o.Where(), field, err)
		}
		add(field, key, v)
	}
	return nil
}

// overrideKey turns "group_Kind" into "group/Kind", as Argo CD's
// convertToOverrideKey does.
func overrideKey(gk string) (string, error) {
	parts := strings.Split(gk, "_")
	switch {
	case len(parts) == 2:
		return parts[0] + "/" + parts[1], nil
	case len(parts) == 1 && gk != "":
		return gk, nil
	}
	return "", fmt.Errorf("write resource.customizations.ignoreDifferences.<group>_<Kind>, .<Kind> or .all, got %q", gk)
}

// convert moves a decoded JSON value into a typed struct.
func convert(in, out any) error {
	b, err := yaml.Marshal(in)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(b, out)
}
