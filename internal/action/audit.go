package action

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// Audit classifies the ignoreDifferences rules of Applications (and
// argocd-cm) against the application's filled manifests; Found when a rule
// is redundant.
type Audit struct {
	Operators
	Helm      // for --manifests directories
	Apps      []string
	ArgocdCM  []string
	Source    string // the application's source directory, rendered
	Manifests []string
	RepoRoot  string
}

func (a *Audit) Run(ctx context.Context, env *Env) (*Result, error) {
	switch {
	case a.Source == "" && len(a.Manifests) == 0:
		return nil, Usagef("give the application's manifests with --source DIR or --manifests FILE...")
	case a.Source != "" && len(a.Manifests) > 0:
		return nil, Usagef("give either --source DIR or --manifests FILE..., not both")
	case a.Source != "" && a.Helm.Given():
		return nil, Usagef("-f/--values, --set*, -n and --release-name apply to --manifests DIR; --source renders with the Application's own settings")
	}
	if len(a.Apps) == 0 && len(a.ArgocdCM) == 0 {
		return nil, Usagef("name the Application or ApplicationSet files to audit (APP.yaml...), or --argocd-cm")
	}
	if err := a.confine(env); err != nil {
		return nil, err
	}
	read, used := env.inputs(ctx, &a.Helm)
	found, err := argocd.Collect(a.Apps, a.ArgocdCM, read.All, func(file string) ([]byte, error) { return manifest.ReadFile(file, env.Sidecar.MaxInput) })
	if err != nil {
		return nil, err
	}
	env.Warn(found.Warnings...)
	var src *argocd.Source
	if len(found.Sources) > 0 {
		src = &found.Sources[0]
	}
	var targets []*audit.Target
	var res []*operators.Resolution
	if a.Source != "" && src != nil && src.Plugin != nil {
		// The Application names the plugin: render what generate renders.
		targets, res, err = a.pluginSource(ctx, env, src)
	} else {
		targets, res, err = a.source(ctx, env, read.All, src)
	}
	if err != nil {
		return nil, err
	}
	st, err := env.Store(a.Operators)
	if err != nil {
		return nil, err
	}
	rep := audit.Run(found.Rules, targets, res, audit.NewHistory(st))
	if rep.Summary.Redundant == 0 {
		if err := helmUnused(&a.Helm, *used); err != nil {
			return nil, err
		}
	}
	return &Result{Report: rep, Found: rep.Summary.Redundant > 0}, nil
}

// confine confines the worker to what an audit reads: the Application
// and argocd-cm files, the source's repository root or the manifests, and
// the profile directories.
func (a *Audit) confine(env *Env) error {
	var root []string
	if a.Source != "" {
		opt, err := render.NewOptions(a.Source, a.RepoRoot, 0, render.Settings{})
		if err != nil {
			return err
		}
		root = append(root, opt.RepoRoot)
	}
	inputs := append(append(append([]string{}, a.Apps...), a.ArgocdCM...), a.Manifests...)
	return env.confineInputs(inputs, env.selection(a.Operators, nil).Dirs, root...)
}

// source renders (--source) or reads (--manifests) the application's
// manifests and fills them with the --operator releases.
func (a *Audit) source(ctx context.Context, env *Env, read func([]string) ([]manifest.Object, error), src *argocd.Source) ([]*audit.Target, []*operators.Resolution, error) {
	if len(a.Refs) == 0 {
		return nil, nil, Usagef("audit needs at least one --operator NAME@VERSION: the operator releases running in the cluster (or an Application whose source uses plugin cmp-defaults with its operators, and --source)")
	}
	e, res, err := env.Engine(ctx, a.Operators)
	if err != nil {
		return nil, nil, err
	}
	var objs []manifest.Object
	if a.Source != "" {
		var opt render.Options
		if opt, err = sourceDir(env, a.Source, a.RepoRoot, argocd.Settings(src)); err == nil {
			opt.Warn = func(m string) { env.Warn(m) }
			objs, err = render.Render(ctx, opt)
		}
	} else {
		objs, err = read(a.Manifests)
	}
	if err != nil {
		return nil, nil, err
	}
	targets, err := audit.FillTargets(e, objs)
	return targets, res, err
}

// sourceDir checks that --source is a directory and builds its render
// options as every command does.
func sourceDir(env *Env, dir, repoRoot string, s render.Settings) (render.Options, error) {
	opt, err := render.NewOptions(dir, repoRoot, env.Sidecar.MaxInput, s)
	if err != nil {
		return opt, err
	}
	fi, err := os.Stat(opt.Dir)
	if err != nil {
		return opt, fmt.Errorf("source %s: %v", dir, manifest.PathErr(err))
	}
	if !fi.IsDir() {
		return opt, Usagef("source %s is not a directory; pass rendered files with --manifests", dir)
	}
	return opt, nil
}

// pluginSource renders an Application whose source names the cmp-defaults
// plugin exactly as generate renders it (argocd.Source.PluginConfig, and the same
// render and fill). --operator, when given, overrides its operators.
func (a *Audit) pluginSource(ctx context.Context, env *Env, src *argocd.Source) ([]*audit.Target, []*operators.Resolution, error) {
	dir, err := sourceDir(env, a.Source, a.RepoRoot, render.Settings{})
	if err != nil {
		return nil, nil, err
	}
	cfg, err := src.PluginConfig(dir.Dir, dir.RepoRoot, env.Sidecar)
	if err != nil {
		return nil, nil, err
	}
	o := a.Operators
	if len(o.Refs) == 0 {
		o.Refs = cfg.Operators
		o.Strict = o.Strict || cfg.Strict
		if err := appOperators(src, cfg); err != nil {
			return nil, nil, err
		}
	}
	if len(o.Refs) == 0 {
		return nil, nil, Usagef("Application %s sets no operators for cmp-defaults (parameter operators or plugin env CMP_DEFAULTS_OPERATORS); give --operator NAME@VERSION", src.App)
	}
	// The job generate would run, named as audit's flags: an empty source
	// is what it would be for generate (allow-empty).
	j := Job{Job: cmpJob(cfg, env.selection(o, o.Refs), env.Sidecar.MaxInput), Names: flags}
	j.Record, j.TimeoutName = true, flags.Of("timeout")
	res, err := env.runJob(ctx, j)
	if err != nil {
		return nil, nil, err
	}
	return audit.TargetsOf(res.Objects, res.Filled), res.Releases, nil
}

// appOperators checks the operator releases an audited Application sets
// for the plugin, naming the file and field: an ApplicationSet often
// templates them per cluster ("{{...}}"), which only --operator can stand
// in for.
func appOperators(src *argocd.Source, cfg *plugin.Config) error {
	field := src.Field + ".plugin.env CMP_DEFAULTS_OPERATORS"
	if strings.HasPrefix(cfg.From["operators"], "parameter") {
		field = src.Field + ".plugin.parameters operators"
	}
	for _, ref := range plugin.SplitList(cfg.Operators...) {
		_, _, err := operators.ParseRef(ref)
		switch {
		case err == nil:
		case strings.Contains(ref, "{{"):
			return Usagef("%s: %s is templated (%q), known only per generated Application; give the release to audit with --operator NAME@VERSION", src.Where, field, ref)
		default:
			return Usagef("%s: %s: %v; fix it, or give the release to audit with --operator NAME@VERSION", src.Where, field, err)
		}
	}
	return nil
}
