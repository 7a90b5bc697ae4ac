package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// side finds the Applications of one tree, follows apps of apps, and
// renders each.
func (p *Preview) side(ctx context.Context, env *Env, admission *admissionCache, r *Audit, cache *flagEngine, dir string, cm []*argocd.Rule) (map[string]*preview.Side, error) {
	found, err := p.discover(env, dir)
	if err != nil {
		return nil, err
	}
	apps := map[string]*preview.Side{}
	var queue []queued
	add := func(f *argocd.Found, parent string, depth int) {
		for _, app := range f.Applications {
			k := preview.AppNamespace(app) + "/" + app.Origin.Name
			if s, ok := apps[k]; ok {
				if s.Parent == "" && parent != "" && parent != k {
					s.Parent = parent
				}
				continue
			}
			if filepath.IsAbs(app.Origin.File) {
				app.Origin.File = relSlash(dir, app.Origin.File)
			}
			apps[k] = &preview.Side{App: app, Data: app.Object, Parent: parent}
			var rules []*argocd.Rule
			for _, rule := range f.Rules {
				if rule.App == app {
					rules = append(rules, rule)
				}
			}
			queue = append(queue, queued{app, append(rules, cm...), parent, depth})
		}
	}
	add(found, "", 0)
	// Level by level of apps of apps: a level's Applications render at
	// once, then each is taken in order as one render after another would.
	for len(queue) > 0 {
		level := queue
		queue = nil
		renders, err := p.renderLevel(ctx, env, r, cache, dir, level)
		if err != nil {
			return nil, err
		}
		for i, q := range level {
			k := preview.AppNamespace(q.app) + "/" + q.app.Origin.Name
			s := apps[k]
			s.Rules = q.rules
			s.AutoPrune = autoPrune(q.app.Object)
			if q.app.Origin.Kind == "ApplicationSet" {
				if s.NotEvaluated, err = p.appSet(ctx, env, dir, r.RepoURL, q.app, s); err != nil {
					return nil, err
				}
				if s.NotEvaluated == "" {
					children, err := argocd.Extract(asObjects(s.Objects, q.app.Origin.File))
					if err != nil {
						return nil, err
					}
					add(children, k, q.depth+1)
				}
				continue
			}
			rd := renders[i]
			if rd.err != nil {
				if ctx.Err() != nil {
					return nil, rd.err
				}
				s.Err = rd.err
				continue
			}
			g, as, app := rd.g, rd.as, rd.app
			s.Operators = as.Operators
			s.Objects = objectsOf(admission, g, as, app)
			for i, sr := range as.Sources {
				// A ref source's files are for the others: nothing of its own to render.
				if src := app.Sources[i]; sr.Reason != "" && (src.Ref == "" || src.Path != "" || src.Chart != "") {
					s.Unrendered = append(s.Unrendered, sr.Field+": "+sr.Reason)
				}
			}
			var objs []manifest.Object
			for _, t := range g.Targets {
				objs = append(objs, t.Object)
			}
			children, err := argocd.Extract(objs)
			if err != nil {
				s.Err = err
				continue
			}
			if len(children.Applications) > 0 && q.depth >= maxAppDepth {
				s.Err = fmt.Errorf("apps of apps deeper than %d levels", maxAppDepth)
				continue
			}
			add(children, k, q.depth+1)
		}
	}
	return apps, nil
}

// queued is an Application or ApplicationSet found and not yet rendered.
type queued struct {
	app    *argocd.App
	rules  []*argocd.Rule
	parent string
	depth  int
}

// rendered is what rendering one queued Application made.
type rendered struct {
	app    *argocd.App // with its .argocd-source overrides
	key    string      // inputsKey: "" when it has none
	reused bool
	g      audit.Group // read-only: a revision with the same key shares it
	as     audit.AppSources
	err    error
}

// renderLevel renders the Applications of level (not its ApplicationSets)
// at once, at most one per CPU, each with an Env of its own whose warnings
// join env's in the level's order: the report and warnings are those of
// one render after another, only sooner.
func (p *Preview) renderLevel(ctx context.Context, env *Env, r *Audit, cache *flagEngine, dir string, level []queued) ([]rendered, error) {
	if len(r.refs()) > 0 && cache.e == nil {
		// Compiled once here: the renders share it and never write cache.
		if _, _, err := r.engine(ctx, env, cache); err != nil {
			return nil, err
		}
	}
	out := make([]rendered, len(level))
	envs := make([]*Env, len(level))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, q := range level {
		if q.app.Origin.Kind == "ApplicationSet" {
			continue
		}
		envs[i] = env.fork()
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			o := &out[i]
			if o.app, o.err = withOverrides(envs[i], dir, q.app); o.err != nil {
				return
			}
			o.key, _ = r.inputsKey(envs[i], dir, o.app)
			if done, ok := p.rendered[o.key]; ok && o.key != "" {
				o.g, o.as, o.reused = done.g, done.as, true
				return
			}
			o.g, o.as, o.err = r.renderApp(ctx, envs[i], cache, dir, r.RepoURL, o.app)
		}()
	}
	wg.Wait()
	for i, e := range envs {
		if e != nil {
			env.Warnings.MergeNew(&e.Warnings)
		}
		if o := out[i]; o.reused {
			p.reused++
		} else if o.key != "" && o.err == nil {
			p.rendered[o.key] = o
		}
	}
	return out, nil
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

// discover reads every Application and ApplicationSet in the YAML and JSON
// files of dir, but those of Helm charts (templates render only through
// their Application) and of .git.
func (p *Preview) discover(env *Env, dir string) (*argocd.Found, error) {
	var objs []manifest.Object
	read := env.reader(nil)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "Chart.yaml")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := manifest.ReadFile(path, env.Sidecar.MaxInput)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte("argoproj.io")) || !bytes.Contains(b, []byte("Application")) {
			return nil
		}
		got, err := read.All([]string{path})
		if err != nil {
			env.Warn(fmt.Sprintf("%s: skipped, not read as YAML or JSON: %v", relSlash(dir, path), err))
			return nil
		}
		objs = append(objs, got...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	found, err := argocd.Extract(objs)
	if err != nil {
		return nil, err
	}
	found.SetLines(func(file string) ([]byte, error) { return manifest.ReadFile(file, env.Sidecar.MaxInput) })
	for _, r := range found.Rules {
		r.Origin.File = relSlash(dir, r.Origin.File)
	}
	for _, w := range found.Warnings {
		env.Warn(strings.ReplaceAll(w, dir+string(filepath.Separator), ""))
	}
	return found, nil
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
