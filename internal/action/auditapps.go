package action

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// renderApps renders each Application's own sources from the repository
// root and fills them, and audits each Application's rules against its
// objects (every source of a multi-source Application together);
// argocd-cm's rules apply to every application, so they are audited
// against all the objects.
func (a *Audit) renderApps(ctx context.Context, env *Env, found *argocd.Found, hist *audit.History) (*audit.Report, error) {
	root, shown, err := a.repoRoot(env)
	if err != nil {
		return nil, err
	}
	this := a.RepoURL
	if this == "" {
		this = originURL(root)
	}
	var cache flagEngine
	var everyApp audit.Group
	if len(a.Refs) > 0 {
		// --operator is checked, and named in the report, even when no
		// source renders here.
		_, res, err := a.engine(ctx, env, &cache)
		if err != nil {
			return nil, err
		}
		everyApp.Releases = res
	}
	groups := make([]audit.Group, len(found.Applications))
	apps := make([]audit.AppSources, len(found.Applications))
	index := map[*argocd.App]int{}
	for i, app := range found.Applications {
		index[app] = i
		if groups[i], apps[i], err = a.renderApp(ctx, env, &cache, root, this, app); err != nil {
			return nil, err
		}
		everyApp.Targets = append(everyApp.Targets, groups[i].Targets...)
		everyApp.Releases = addReleases(everyApp.Releases, groups[i].Releases)
	}
	for _, r := range found.Rules {
		if i, ok := index[r.App]; ok {
			groups[i].Rules = append(groups[i].Rules, r)
		} else {
			everyApp.Rules = append(everyApp.Rules, r)
		}
	}
	if len(everyApp.Rules) == 0 {
		everyApp.Targets = nil // only its releases, for the report
	}
	groups = append(groups, everyApp)
	objects := 0
	for _, g := range groups[:len(groups)-1] {
		objects += len(g.Targets)
	}
	rep := audit.ClassifyGroups(groups, hist)
	rep.Objects = objects
	rep.RepoRoot, rep.Applications = shown, apps
	return rep, nil
}

// renderApp renders and fills the sources of one Application that are in
// this repository, and says why the others are not rendered.
func (a *Audit) renderApp(ctx context.Context, env *Env, cache *flagEngine, root, this string, app *argocd.App) (audit.Group, audit.AppSources, error) {
	var g audit.Group
	as := audit.AppSources{Origin: app.Origin, Operators: []string{}, Sources: []audit.SourceReport{}}
	if len(app.Sources) == 0 {
		g.Unrendered = append(g.Unrendered, "source (it has no spec.source or spec.sources)")
	}
	refs := map[string]*argocd.Source{}
	for i, s := range app.Sources {
		if s.Ref != "" {
			refs[s.Ref] = &app.Sources[i]
		}
	}
	for i := range app.Sources {
		src := &app.Sources[i]
		sr := audit.SourceReport{Field: src.Field, Path: src.Path}
		if src.Ref != "" && src.Path == "" && src.Chart == "" {
			sr.Reason = fmt.Sprintf("ref %s: value files for the other sources ($%s/...), nothing to render", src.Ref, src.Ref)
			as.Sources = append(as.Sources, sr)
			continue
		}
		var targets []*audit.Target
		var res []*operators.Resolution
		var err error
		if a.charts != nil && src.Chart != "" && src.Plugin == nil && src.OtherPlugin == "" {
			targets, res, sr.Reason, err = a.renderRemote(ctx, env, cache, root, this, src, refs)
		} else {
			targets, res, sr.Dir, sr.Reason, err = a.renderLocal(ctx, env, cache, root, this, src, refs)
		}
		if err != nil {
			return g, as, err
		}
		if sr.Reason != "" {
			as.Sources = append(as.Sources, sr)
			g.Unrendered = append(g.Unrendered, src.Field)
			continue
		}
		sr.Rendered, sr.Objects = true, len(targets)
		as.Sources = append(as.Sources, sr)
		g.Targets = append(g.Targets, targets...)
		g.Releases = addReleases(g.Releases, res)
	}
	for _, r := range g.Releases {
		as.Operators = append(as.Operators, r.Operator+"@"+strings.TrimPrefix(r.Requested, "v"))
	}
	return g, as, nil
}

// renderLocal renders src from the repository; dir is where, relative to
// the root; why says why it is not rendered.
func (a *Audit) renderLocal(ctx context.Context, env *Env, cache *flagEngine, root, this string, src *argocd.Source, refs map[string]*argocd.Source) (targets []*audit.Target, res []*operators.Resolution, dir, why string, err error) {
	abs, h, d, why, err := a.resolve(root, this, src, refs)
	if err != nil || why != "" {
		return nil, nil, "", why, err
	}
	if a.asArgoCD && len(src.Kustomize) > 0 {
		if abs, err = kustomizeOverlay(root, abs, src, src.BuildEnv(a.revision)); err != nil {
			return nil, nil, "", "", err
		}
	} else if len(src.Kustomize) > 0 {
		env.Warn(fmt.Sprintf("%s: %s.kustomize sets %s, which %s does not apply: Argo CD's objects may differ", src.Where, src.Field, strings.Join(src.Kustomize, ", "), a.command()))
	}
	targets, res, err = a.renderSource(ctx, env, cache, src, abs, root, h, d)
	return targets, res, relSlash(root, abs), "", err
}

// resolve finds the directory of src in the repository and its render
// settings; why says why it is not rendered here (a remote chart,
// another repository, a templated path).
func (a *Audit) resolve(root, this string, src *argocd.Source, refs map[string]*argocd.Source) (dir string, h settings.Helm, d settings.Directory, why string, err error) {
	if why = a.elsewhere(src, this); why != "" {
		return "", h, d, why, nil
	}
	if dir, why, err = a.sourceDir(root, src); dir == "" || err != nil {
		return "", h, d, why, err
	}
	if h, d, err = a.settings(src); err != nil {
		return "", h, d, "", err
	}
	h.ValuesFiles = slices.Clone(h.ValuesFiles)
	for i, f := range h.ValuesFiles {
		name, rest, why, err := a.valuesRef(src, f, this, refs)
		if why != "" || err != nil {
			return "", h, d, why, err
		}
		if name == "" {
			continue
		}
		// $ref/path is relative to the root of the ref's repository;
		// the renderer takes values files relative to the chart.
		r, err := filepath.Rel(dir, filepath.Join(root, filepath.FromSlash(rest)))
		if err != nil {
			return "", h, d, "", err
		}
		h.ValuesFiles[i] = filepath.ToSlash(r)
	}
	return dir, h, d, "", nil
}

// valuesRef splits a values file $REF/PATH of src into the ref's name and
// PATH (name "" for any other file); why says why the ref's files are not
// read here, err that no source has that ref.
func (a *Audit) valuesRef(src *argocd.Source, f, this string, refs map[string]*argocd.Source) (name, rest, why string, err error) {
	name, rest, ok := strings.Cut(strings.TrimPrefix(f, "$"), "/")
	if !strings.HasPrefix(f, "$") || !ok {
		return "", "", "", nil
	}
	ref := refs[name]
	if ref == nil {
		return "", "", "", fmt.Errorf("%s: %s.helm.valueFiles %q: no source of the Application has ref: %s", src.Where, src.Field, f, name)
	}
	if w := a.elsewhere(ref, this); w != "" {
		return name, rest, fmt.Sprintf("its values file %s comes from %s (ref %s), which is not rendered here: %s", f, ref.Field, name, w), nil
	}
	return name, rest, "", nil
}

// settings are src's Helm and directory settings as the repo-server
// renders them here: its revision substituted, the clusters' capabilities
// where the Application sets none.
func (a *Audit) settings(src *argocd.Source) (settings.Helm, settings.Directory, error) {
	h, d := argocd.Settings(src, a.revision)
	if a.capabilities != nil && len(h.APIVersions) == 0 {
		h.APIVersions = a.capabilities(a.refs())
	}
	if h.KubeVersion == "" {
		h.KubeVersion = a.kubeVersion
	} else {
		kv, err := argocd.KubeVersion(h.KubeVersion)
		if err != nil {
			return h, d, fmt.Errorf("%s: %s.helm.kubeVersion %q: %w", src.Where, src.Field, h.KubeVersion, err)
		}
		h.KubeVersion = kv
	}
	return h, d, nil
}

// elsewhere says why src is not in this repository (this: its URL, ""
// when unknown): a chart of a Helm repository, another plugin, another
// repoURL. "" when it is rendered here.
func (a *Audit) elsewhere(src *argocd.Source, this string) string {
	switch {
	case src.Chart != "" && a.asArgoCD:
		return fmt.Sprintf("chart %s of %s, not in this repository: preview downloads it with --allow-remote-charts (public ones only), or render it yourself (helm template)", src.Chart, chartHome(src.RepoURL))
	case src.Chart != "":
		return fmt.Sprintf("chart %s of %s, not in this repository: render it yourself (helm template) and audit the output with --manifests", src.Chart, chartHome(src.RepoURL))
	case src.OtherPlugin != "":
		return fmt.Sprintf("it uses the plugin %s, which audit does not run: render it yourself and audit the output with --manifests", src.OtherPlugin)
	case this != "" && src.RepoURL != "" && !strings.Contains(src.RepoURL, "{{") && !argocd.SameRepo(src.RepoURL, this):
		return fmt.Sprintf("repoURL %s is not this repository (%s): audit it from a checkout of that repository, or give --repo-url if it is this one", src.RepoURL, this)
	}
	return ""
}

// sourceDir is src's directory in the repository root: its path, or
// --source for a templated one. A literal path that is not --source is a
// usage error naming both.
func (a *Audit) sourceDir(root string, src *argocd.Source) (dir, why string, err error) {
	p := src.Path
	switch {
	case strings.Contains(p, "{{") && a.Source == "":
		return "", fmt.Sprintf("path %q is templated, known only per generated Application: give the directory to audit with --source DIR", p), nil
	case strings.Contains(p, "{{"):
		if dir, err = filepath.Abs(a.Source); err != nil {
			return "", "", err
		}
	case filepath.IsAbs(p) || strings.HasPrefix(relSlash(root, filepath.Join(root, filepath.FromSlash(p))), ".."):
		return "", "", fmt.Errorf("%s: %s.path %q is not inside the repository root %s", src.Where, src.Field, p, root)
	default:
		dir = filepath.Join(root, filepath.FromSlash(p))
		if a.Source != "" {
			given, err := filepath.Abs(a.Source)
			if err != nil {
				return "", "", err
			}
			if given != dir {
				return "", "", Usagef("%s: %s.path is %q (%s), not --source %s: audit renders each Application's own path from the repository root; drop --source (it stands in for templated paths only)", src.Where, src.Field, p, dir, a.Source)
			}
		}
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("%s: %s.path %q: %s does not exist; is the repository root %s the checkout the Application's paths are relative to? (--repo-root)", src.Where, src.Field, p, dir, root)
	case !fi.IsDir():
		return "", "", fmt.Errorf("%s: %s.path %q: %s is not a directory", src.Where, src.Field, p, dir)
	}
	return dir, "", nil
}

// renderSource renders and fills one source: as generate does when it
// names the plugin, else with the Application's Helm and directory
// settings and the --operator releases.
func (a *Audit) renderSource(ctx context.Context, env *Env, cache *flagEngine, src *argocd.Source, dir, root string, h settings.Helm, d settings.Directory) ([]*audit.Target, []*operators.Resolution, error) {
	shown := relSlash(root, dir)
	if src.Plugin != nil {
		targets, res, err := a.pluginSource(ctx, env, src, dir, root)
		if err != nil && !strings.HasPrefix(err.Error(), src.Where) {
			err = fmt.Errorf("%s: %s %s: %w", src.Where, src.Field, shown, err)
		}
		return targets, res, err
	}
	opt, err := a.sourceOptions(env, dir, root, h, d)
	if err != nil {
		return nil, nil, err
	}
	return a.renderFill(ctx, env, cache, src, opt, shown)
}

// renderFill renders the source src with opt and fills it with the
// --operator releases; shown names it in errors.
func (a *Audit) renderFill(ctx context.Context, env *Env, cache *flagEngine, src *argocd.Source, opt render.Options, shown string) ([]*audit.Target, []*operators.Resolution, error) {
	if len(a.Refs) == 0 && !a.asArgoCD {
		return nil, nil, Usagef("%s: %s does not use plugin cmp-defaults, so audit needs --operator NAME@VERSION: the operator releases running in the cluster", src.Where, src.Field)
	}
	var e *defaults.Engine
	var res []*operators.Resolution
	if len(a.Refs) > 0 {
		var err error
		if e, res, err = a.engine(ctx, env, cache); err != nil {
			return nil, nil, err
		}
	}
	objs, err := render.Render(ctx, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s %s: %w", src.Where, src.Field, shown, err)
	}
	if e == nil { // asArgoCD: what the Application applies, unfilled
		return audit.TargetsOf(objs, nil), nil, nil
	}
	targets, err := audit.FillTargets(e, objs)
	return targets, res, err
}

// sourceOptions are the render options of an Application's source
// directory, built as every command builds them.
func (a *Audit) sourceOptions(env *Env, dir, root string, h settings.Helm, d settings.Directory) (render.Options, error) {
	opt, err := render.NewOptions(dir, root, env.Sidecar.MaxInput, env.Sidecar.Limits, h, d)
	opt.Timeout = a.timeout()
	opt.Warn = env.warnDuplicate
	return opt, err
}

// repoRoot is --repo-root, else the nearest directory from the working
// directory up that holds .git; shown is how the report names it.
func (a *Audit) repoRoot(env *Env) (root, shown string, err error) {
	wd := env.WorkDir
	if wd == "" {
		if wd, err = filepath.Abs("."); err != nil {
			return "", "", err
		}
	}
	if a.RepoRoot != "" {
		if root, err = filepath.Abs(a.RepoRoot); err != nil {
			return "", "", err
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return "", "", Usagef("--repo-root %s is not a directory", a.RepoRoot)
		}
		return root, a.RepoRoot, nil
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, relSlash(wd, d), nil
		}
		if filepath.Dir(d) == d {
			return "", "", Usagef("no repository root: no directory from %s up holds .git; give the checkout that the Applications' paths are relative to with --repo-root DIR (or pass rendered manifests with --manifests)", wd)
		}
	}
}

// originURL is the URL of the remote "origin" in the git configuration
// of the repository at root; "" when there is none.
func originURL(root string) string {
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Stat(gitDir); err == nil && fi.Mode().IsRegular() {
		// A worktree's .git file: "gitdir: DIR"; its configuration is
		// in the common directory.
		b, err := readSmall(gitDir)
		if err != nil {
			return ""
		}
		gitDir = absUnder(root, strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:")))
		if c, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
			gitDir = absUnder(gitDir, strings.TrimSpace(string(c)))
		}
	}
	b, err := readSmall(filepath.Join(gitDir, "config"))
	if err != nil {
		return ""
	}
	origin := false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			origin = strings.ReplaceAll(l, " ", "") == `[remote"origin"]`
			continue
		}
		if k, v, ok := strings.Cut(l, "="); origin && ok && strings.TrimSpace(k) == "url" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func readSmall(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

func absUnder(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

// relSlash names p relative to base with forward slashes; p when it
// cannot.
func relSlash(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// addReleases adds to rs the releases of more it does not hold yet.
func addReleases(rs, more []*operators.Resolution) []*operators.Resolution {
	for _, r := range more {
		if !slices.ContainsFunc(rs, func(x *operators.Resolution) bool { return x.Operator == r.Operator && x.Requested == r.Requested }) {
			rs = append(rs, r)
		}
	}
	return rs
}

// command names the command that renders the Applications, for messages.
func (a *Audit) command() string {
	if a.asArgoCD {
		return "preview"
	}
	return "audit"
}
