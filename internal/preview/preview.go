// Package preview compares what Argo CD will apply for each Application at
// two revisions of a repository: per resource the effective change (both
// sides as the API server stores them, admission defaults filled), the
// fields admission fills, the changes an ignoreDifferences rule would hide,
// the immutable fields changed, hooks and prunes, and a predicted sync
// status per Application. It computes reports; rendering the revisions is
// the caller's.
package preview

import (
	"slices"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// APIVersion versions the JSON report: fields are added within it, never
// renamed or removed.
const APIVersion = "cmp-defaults.io/preview/v1"

// Change says how an Application or a resource differs between the sides.
type Change string

const (
	Added        Change = "added"
	Removed      Change = "removed"
	Modified     Change = "modified"
	Unchanged    Change = "unchanged"
	Failed       Change = "error"         // a side did not render
	NotEvaluated Change = "not-evaluated" // an ApplicationSet, or no source rendered here
)

// Sync is the sync status an Application is predicted to have after the
// merge.
type Sync string

const (
	Synced    Sync = "Synced"
	OutOfSync Sync = "OutOfSync"
	Unknown   Sync = "Unknown"
)

// Report is the preview of one pair of revisions.
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Base       Revision `json:"base"`
	Head       Revision `json:"head"`
	Summary    Summary  `json:"summary"`
	Apps       []*App   `json:"apps"`
	// MaxCommentBytes bounds each part of the Markdown report.
	MaxCommentBytes int `json:"-"`
}

// Revision names one side: the revision asked for and the commit it is,
// or a directory.
type Revision struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit,omitempty"`
}

// Summary counts what the report holds.
type Summary struct {
	Apps         int `json:"apps"`
	Changed      int `json:"changed"`
	OutOfSync    int `json:"outOfSync"`
	Unknown      int `json:"unknown"`
	Errors       int `json:"errors"`
	NotEvaluated int `json:"notEvaluated"`
	Resources    int `json:"resources"` // resources added, removed or modified
	Hidden       int `json:"hidden"`    // resources with a change an ignoreDifferences rule hides
	Immutable    int `json:"immutable"` // resources with a change to an immutable field
	Prunes       int `json:"prunes"`    // resources removed
}

// App is one Application (or ApplicationSet) matched between the sides by
// namespace and name.
type App struct {
	Kind      string `json:"kind"` // Application or ApplicationSet
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	File      string `json:"file"` // where it is written (head's, else base's)
	// Parent is the Application whose sources produce this one
	// (namespace/name), for apps of apps.
	Parent        string   `json:"parent,omitempty"`
	Change        Change   `json:"change"`
	PredictedSync Sync     `json:"predictedSync"`
	Drift         []Field  `json:"drift,omitempty"`   // OutOfSync: what admission adds that the app neither fills nor ignores
	Reasons       []string `json:"reasons,omitempty"` // why Unknown, not evaluated or an error
	Operators     []string `json:"operators,omitempty"`
	// SpecChanged: the Application itself differs between the sides.
	SpecChanged bool        `json:"specChanged,omitempty"`
	Resources   []*Resource `json:"resources"`
}

// Resource is one resource that differs between the sides.
type Resource struct {
	Group     string `json:"group"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Change    Change `json:"change"`
	// Diff is a unified diff of the two sides as stored; empty for a
	// Secret, whose values never appear (Redacted).
	Diff     string `json:"diff,omitempty"`
	Redacted bool   `json:"redacted,omitempty"`
	// Filled lists what admission fills in the head side (the base side's
	// for a removed resource), with its rule: not shown as changes.
	Filled []Field `json:"filled"`
	// Hidden lists changed fields an ignoreDifferences rule of the
	// Application (or argocd-cm) ignores: Argo CD will not show them.
	Hidden []Field `json:"hidden"`
	// Immutable lists changed fields the API server refuses to update.
	Immutable []string `json:"immutable,omitempty"`
	// Hook is the hook annotation's value: Argo CD runs the resource as a
	// hook and leaves it out of the sync status.
	Hook string `json:"hook,omitempty"`
	// Prune, for a removed resource: automatic (the sync policy prunes),
	// manual (the app is OutOfSync until pruned) or disabled (Prune=false).
	Prune string `json:"prune,omitempty"`
}

// Field is one field of a resource.
type Field struct {
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
	Rule  string `json:"rule,omitempty"` // the profile rule, or the ignoreDifferences entry that hides it
	Type  string `json:"type,omitempty"` // default or mutation
	// Resource names the resource for an Application's drift.
	Resource string `json:"resource,omitempty"`
}

// Side is one Application at one revision, rendered.
type Side struct {
	App     *argocd.App
	Data    map[string]any // the Application object itself
	Parent  string
	Objects []Object
	// Rules are the ignoreDifferences rules in force: the Application's and
	// argocd-cm's.
	Rules []*argocd.Rule
	// Unrendered says why sources were not rendered; Err why the side failed.
	Unrendered []string
	Err        error
	// NotEvaluated says why an ApplicationSet's Applications were not
	// generated.
	NotEvaluated string
	Operators    []string
	AutoPrune    bool
}

// Object is one rendered object as the API server will store it: Data is
// filled with what admission adds (Filled); InGit says the Application
// applies it filled (it renders with the cmp-defaults plugin). Unknown
// says why what admission adds to it is not known.
type Object struct {
	Data map[string]any
	// Namespace is the namespace Argo CD gives it: its own, else the
	// Application's destination namespace for a namespaced kind.
	Namespace string
	Filled    []defaults.Filled
	InGit     bool
	Unknown   string
}

// key names a resource as Argo CD matches it: group, kind, namespace, name.
func (o *Object) key() string {
	g, k := argocd.GroupKind(o.Data)
	return g + "/" + k + "/" + o.Namespace + "/" + argocd.Meta(o.Data, "name")
}

// hookOf is the hook annotation of obj: Argo CD runs it as a hook.
func hookOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	for _, k := range []string{"argocd.argoproj.io/hook", "helm.sh/hook"} {
		if v, ok := ann[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

// pruneOf is how Argo CD treats obj when it leaves the app's manifests.
func pruneOf(obj map[string]any, auto bool) string {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	opts, _ := ann["argocd.argoproj.io/sync-options"].(string)
	for _, o := range strings.Split(opts, ",") {
		if strings.TrimSpace(o) == "Prune=false" {
			return "disabled"
		}
	}
	if auto {
		return "automatic"
	}
	return "manual"
}

// isSecret says whether obj is a core Secret, whose values never appear.
func isSecret(obj map[string]any) bool {
	g, k := argocd.GroupKind(obj)
	return g == "" && k == "Secret"
}

// redact returns obj with a Secret's values replaced by a marker.
func redact(obj map[string]any) map[string]any {
	if !isSecret(obj) {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	for _, f := range []string{"data", "stringData"} {
		m, ok := obj[f].(map[string]any)
		if !ok {
			continue
		}
		r := make(map[string]any, len(m))
		for k := range m {
			r[k] = "<redacted>"
		}
		out[f] = r
	}
	return out
}

// Manifests are objs as --output-dir writes them: Secrets redacted.
func Manifests(objs []Object) []manifest.Object {
	out := make([]manifest.Object, len(objs))
	for i, o := range objs {
		out[i] = manifest.Object{Data: redact(o.Data)}
	}
	return out
}

func (r *Report) count() {
	r.Summary = Summary{Apps: len(r.Apps)}
	for _, a := range r.Apps {
		switch a.Change {
		case Failed:
			r.Summary.Errors++
		case NotEvaluated:
			r.Summary.NotEvaluated++
		case Unchanged:
		default:
			r.Summary.Changed++
		}
		switch a.PredictedSync {
		case OutOfSync:
			r.Summary.OutOfSync++
		case Unknown:
			r.Summary.Unknown++
		}
		for _, res := range a.Resources {
			r.Summary.Resources++
			if len(res.Hidden) > 0 {
				r.Summary.Hidden++
			}
			if len(res.Immutable) > 0 {
				r.Summary.Immutable++
			}
			if res.Change == Removed {
				r.Summary.Prunes++
			}
		}
	}
}

// Changed says whether anything differs between the sides.
func (r *Report) Changed() bool { return r.Summary.Changed > 0 }

// sortApps orders apps by namespace and name, as the reports list them.
func sortApps(apps []*App) {
	slices.SortFunc(apps, func(a, b *App) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
