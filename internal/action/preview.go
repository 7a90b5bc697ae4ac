package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/preview"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// Preview compares what Argo CD will apply for every Application of a
// repository at two revisions (or two directories), with the admission
// defaults of the operator releases filled, and predicts each
// Application's sync status after the merge. Found when anything changes.
type Preview struct {
	Operators // releases for sources that do not name the plugin
	Rendering // RepoRoot: the git repository; Timeout: the whole run
	Base      string
	Head      string
	RepoURL   string
	ArgocdCM  []string
	// KeepGoing reports Applications that fail to render instead of
	// failing the run.
	KeepGoing       bool
	FailOn          []string // outofsync, hidden-change
	MaxCommentBytes int
	// OutputDir, when set, receives report.json, comment-N.md and each
	// Application's manifests of both sides (Secrets redacted).
	OutputDir string
	// AppSetGenerator is the program that generates ApplicationSets
	// (default: cmp-defaults-appset beside this binary or on PATH);
	// Clusters a file of cluster Secrets for its Clusters generator.
	AppSetGenerator string
	Clusters        string
	// KubeVersion and APIVersions describe the destination clusters for
	// Helm's .Capabilities, as Argo CD passes each cluster's; APIVersions
	// add to those of the kinds the selected releases have profiles of.
	KubeVersion string
	APIVersions []string
	// AllowRemoteCharts downloads the charts of Helm repositories that
	// sources name (public ones: no credentials) and renders them;
	// ChartCache keeps their archives (default: a directory of the run).
	AllowRemoteCharts bool
	ChartCache        string

	appSetProg  string // AppSetGenerator as found; "": none
	kubeVersion string // KubeVersion as the repo-server reads it
	// rendered keeps each Application rendered by its inputsKey: the
	// head revision renders only what the base did not.
	rendered map[string]rendered
	reused   int // Applications not rendered again
}

// DefaultPreviewTimeout bounds a whole preview: every Application at both
// revisions (each render has the default deadline of one render).
const DefaultPreviewTimeout = 10 * time.Minute

// maxAppDepth bounds apps of apps.
const maxAppDepth = 10

var failOn = []string{"outofsync", "hidden-change"}

func (p *Preview) Run(ctx context.Context, env *Env) (*Result, error) {
	if p.Base == "" || p.Head == "" {
		return nil, Usagef("give both --base and --head: git revisions of the repository, or directories")
	}
	for _, f := range p.FailOn {
		if !slices.Contains(failOn, f) {
			return nil, Usagef("--fail-on %q: use %s", f, strings.Join(failOn, ", "))
		}
	}
	kv, err := argocd.KubeVersion(p.KubeVersion)
	if err == nil {
		err = render.CheckKubeVersion(kv)
	}
	if err != nil {
		return nil, Usagef("--kube-version: %v", err)
	}
	p.kubeVersion = kv
	if p.ChartCache != "" && !p.AllowRemoteCharts {
		return nil, Usagef("--chart-cache keeps the charts --allow-remote-charts downloads: give both, or neither")
	}
	if p.appSetProg, err = p.appSetGenerator(env); err != nil {
		return nil, err
	}
	run := p.Rendering
	if run.Timeout == 0 {
		run.Timeout = DefaultPreviewTimeout
	}
	var rep *preview.Report
	err = env.within(ctx, run, func(ctx context.Context) (err error) {
		rep, err = p.run(ctx, env)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := p.failures(rep); err != nil {
		return nil, err
	}
	return &Result{Report: rep, Found: rep.Changed(), Notes: p.written()}, nil
}

func (p *Preview) run(ctx context.Context, env *Env) (*preview.Report, error) {
	tmp, err := os.MkdirTemp(env.Getenv("TMPDIR"), "cmp-defaults-preview-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var root string
	sides := [2]struct {
		arg, dir string
		rev      preview.Revision
		apps     map[string]*preview.Side
	}{{arg: p.Base}, {arg: p.Head}}
	for i := range sides {
		s := &sides[i]
		s.rev.Ref = s.arg
		s.dir = filepath.Join(tmp, []string{"base", "head"}[i])
		if fi, err := os.Stat(s.arg); err == nil && fi.IsDir() {
			// A copy: preview writes the kustomizations of kustomize settings into its tree.
			if err := copyTree(s.arg, s.dir); err != nil {
				return nil, err
			}
			continue
		}
		if root == "" {
			if root, _, err = (&Audit{Rendering: p.Rendering}).repoRoot(env); err != nil {
				return nil, err
			}
		}
		if s.rev.Commit, err = env.checkout(ctx, root, s.arg, s.dir); err != nil {
			return nil, err
		}
	}
	this := p.RepoURL
	if this == "" {
		if root == "" {
			root = p.Head
		}
		this = originURL(root)
	}
	cm, err := p.configMapRules(env)
	if err != nil {
		return nil, err
	}
	st, err := env.Store(p.Operators)
	if err != nil {
		return nil, err
	}
	var cache flagEngine
	p.rendered = map[string]rendered{}
	admission := &admissionCache{st: st, seen: map[admissionKey]string{}}
	charts, err := p.remoteCharts(env, tmp)
	if err != nil {
		return nil, err
	}
	for i := range sides {
		s := &sides[i]
		r := &Audit{Operators: p.Operators, Rendering: Rendering{RepoRoot: s.dir}, RepoURL: this, asArgoCD: true,
			kubeVersion: p.kubeVersion, revision: s.rev.Commit, charts: charts, capabilities: func(refs []string) []string {
				return append(servedAPIVersions(st, refs), p.APIVersions...)
			}}
		if s.apps, err = p.side(ctx, env, admission, r, &cache, s.dir, cm); err != nil {
			return nil, err
		}
	}
	rep := preview.Build(sides[0].rev, sides[1].rev, sides[0].apps, sides[1].apps)
	rep.MaxCommentBytes = p.MaxCommentBytes
	if !p.KeepGoing && rep.Summary.Errors > 0 {
		for _, a := range rep.Apps {
			if a.Change == preview.Failed {
				return nil, fmt.Errorf("%s %s/%s (%s): %s; --keep-going reports it and goes on", a.Kind, a.Namespace, a.Name, a.File, strings.Join(a.Reasons, "; "))
			}
		}
	}
	if p.OutputDir != "" {
		if err := p.write(rep, sides[0].apps, sides[1].apps); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// remoteCharts is the downloader of --allow-remote-charts, with its
// cache in --chart-cache or else in tmp; nil without the flag.
func (p *Preview) remoteCharts(env *Env, tmp string) (*remoteCharts, error) {
	if !p.AllowRemoteCharts {
		return nil, nil
	}
	work := filepath.Join(tmp, "charts")
	cache := p.ChartCache
	if cache == "" {
		cache = filepath.Join(work, "cache")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, fmt.Errorf("--chart-cache: %w", err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	return newRemoteCharts(cache, work, env.Getenv), nil
}

// objectsOf pairs the rendered targets of an Application with what the
// preview needs: whether its source applies them filled (the plugin), and
// why what admission adds is unknown.
func objectsOf(admission *admissionCache, g audit.Group, as audit.AppSources, app *argocd.App) []preview.Object {
	var rels strings.Builder
	for _, r := range g.Releases {
		rels.WriteString(r.Operator + "@" + r.Requested + " ")
	}
	var out []preview.Object
	i := 0
	for si, sr := range as.Sources {
		for range sr.Objects {
			t := g.Targets[i]
			i++
			out = append(out, preview.Object{Data: t.Object.Data, Filled: t.Filled, InGit: app.Sources[si].Plugin != nil,
				Namespace: argocd.Namespace(t.Object.Data, app.Namespace),
				Unknown:   admission.unknown(g.Releases, rels.String(), t.Object.Data)})
		}
	}
	return out
}

// admissionCache keeps unknownAdmission's answers for one run, by
// apiVersion, kind and the releases asked (both revisions ask the same
// questions; each answer reads every operator's newest profile).
type admissionCache struct {
	st   *operators.Store
	seen map[admissionKey]string
}

type admissionKey struct{ apiVersion, kind, releases string }

func (c *admissionCache) unknown(res []*operators.Resolution, releases string, obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	key := admissionKey{av, k, releases}
	msg, ok := c.seen[key]
	if !ok {
		msg = unknownAdmission(c.st, res, obj)
		c.seen[key] = msg
	}
	return msg
}

// unknownAdmission says why what admission adds to obj is not known: the
// selected release's webhook defaults were not learned, or no selected
// release covers its API group while a profile of the store does.
func unknownAdmission(st *operators.Store, res []*operators.Resolution, obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	for _, r := range res {
		if msg := st.UnknownWebhookMessage(r, av, k); msg != "" {
			return msg
		}
	}
	group, _, ok := strings.Cut(av, "/")
	if !ok || st == nil {
		return ""
	}
	for _, r := range res {
		if r.Profile != nil && slices.ContainsFunc(r.Profile.Resources, func(rs operators.Resource) bool { return rs.Group == group }) {
			return ""
		}
	}
	if names := st.CoveringKind(group, k); len(names) > 0 {
		return fmt.Sprintf("%s %s has admission defaults in %s, and no release of it is selected: give --operator %s@VERSION (or name it in the plugin's operators)", av, k, strings.Join(names, ", "), names[0])
	}
	return ""
}

// servedAPIVersions are the API versions (group/version and
// group/version/Kind) of the kinds the releases refs have profiles of: what
// preview gives Helm's .Capabilities.APIVersions, where Argo CD gives the
// cluster's, so that templates gated on an operator's kinds render.
func servedAPIVersions(st *operators.Store, refs []string) []string {
	var out []string
	for _, ref := range refs {
		name, version, err := operators.ParseRef(ref)
		if err != nil {
			continue
		}
		r, err := st.Resolve(name, version, false)
		if err != nil || r.Profile == nil {
			continue
		}
		for _, rs := range r.Profile.Resources {
			out = append(out, rs.APIVersion(), rs.APIVersion()+"/"+rs.Kind)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// autoPrune says whether the Application's sync policy prunes.
func autoPrune(obj map[string]any) bool {
	spec, _ := obj["spec"].(map[string]any)
	if obj["kind"] == "ApplicationSet" {
		t, _ := spec["template"].(map[string]any)
		spec, _ = t["spec"].(map[string]any)
	}
	sp, _ := spec["syncPolicy"].(map[string]any)
	auto, _ := sp["automated"].(map[string]any)
	prune, _ := auto["prune"].(bool)
	return prune
}

// configMapRules reads the ignoreDifferences of --argocd-cm files.
func (p *Preview) configMapRules(env *Env) ([]*argocd.Rule, error) {
	if len(p.ArgocdCM) == 0 {
		return nil, nil
	}
	found, err := argocd.Collect(nil, p.ArgocdCM, env.reader(nil).All, func(file string) ([]byte, error) { return manifest.ReadFile(file, env.Sidecar.MaxInput) })
	if err != nil {
		return nil, err
	}
	return found.Rules, nil
}

// failures is the error --fail-on asks for, after the reports are written.
func (p *Preview) failures(rep *preview.Report) error {
	var why []string
	for _, f := range p.FailOn {
		switch {
		case f == "outofsync" && rep.Summary.OutOfSync > 0:
			why = append(why, fmt.Sprintf("%d Applications are predicted OutOfSync", rep.Summary.OutOfSync))
		case f == "hidden-change" && rep.Summary.Hidden > 0:
			why = append(why, fmt.Sprintf("%d resources change fields an ignoreDifferences rule hides", rep.Summary.Hidden))
		}
	}
	if len(why) == 0 {
		return nil
	}
	msg := strings.Join(why, "; ") + " (--fail-on " + strings.Join(p.FailOn, ",") + ")"
	if p.OutputDir != "" {
		msg += "; the reports are in " + p.OutputDir
	} else {
		msg += "; give --output-dir to keep the reports"
	}
	return fmt.Errorf("%s", msg)
}

func (p *Preview) written() string {
	if p.OutputDir == "" {
		return ""
	}
	return "preview: wrote report.json, comment-*.md and the manifests of both sides to " + p.OutputDir
}

// write writes the reports and the manifests of both sides to OutputDir.
func (p *Preview) write(rep *preview.Report, base, head map[string]*preview.Side) error {
	if err := os.MkdirAll(p.OutputDir, 0o755); err != nil {
		return err
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		return err
	}
	files := map[string][]byte{"report.json": js.Bytes()}
	for i, part := range rep.Markdown() {
		files[fmt.Sprintf("comment-%d.md", i+1)] = []byte(part)
	}
	for side, apps := range map[string]map[string]*preview.Side{"base": base, "head": head} {
		for k, s := range apps {
			var b bytes.Buffer
			if err := manifest.Encode(&b, preview.Manifests(s.Objects), "yaml"); err != nil {
				return err
			}
			files[filepath.Join(side, strings.ReplaceAll(k, "/", "_")+".yaml")] = b.Bytes()
		}
	}
	for name, b := range files {
		path := filepath.Join(p.OutputDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return fmt.Errorf("writing the preview: %w", err)
		}
	}
	return nil
}
