package action

import (
	"context"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Audit classifies the ignoreDifferences rules of Applications (and
// argocd-cm) against the applications' filled manifests: each
// Application's own sources rendered from the repository root, or the
// given manifests. Found when a rule is redundant.
type Audit struct {
	Operators
	Helm settings.Helm // for --manifests directories
	Rendering
	Apps      []string
	ArgocdCM  []string
	Manifests []string
	// Source, when set, stands in for the templated path of an
	// ApplicationSet; a literal path must be this directory.
	Source string
	// RepoURL is the repository's URL as the Applications write it;
	// "": the repository root's origin remote, if any.
	RepoURL string
	// asArgoCD renders each source as Argo CD applies it (preview): a
	// plugin source with its own operators even when --operator is given,
	// another source unfilled when no --operator is given.
	asArgoCD bool
	// capabilities, when set, gives a Helm source that sets none the API
	// versions the releases refs serve, as Argo CD gives it the cluster's.
	capabilities func(refs []string) []string
	// kubeVersion, when set, is the cluster's version for Helm's
	// .Capabilities.KubeVersion (Argo CD's KUBE_VERSION).
	kubeVersion string
	// revision is the commit rendered, for Argo CD's $ARGOCD_APP_REVISION
	// ("" when not known).
	revision string
	// charts, when set, downloads the charts of Helm repositories
	// (preview --allow-remote-charts); nil: they are not rendered.
	charts *remoteCharts
}

func (a *Audit) Run(ctx context.Context, env *Env) (*Result, error) {
	switch {
	case a.Source != "" && len(a.Manifests) > 0:
		return nil, Usagef("give either --source DIR or --manifests FILE..., not both")
	case len(a.Manifests) == 0 && a.Helm.Chosen():
		return nil, Usagef("-f/--values, --set*, -n and --release-name apply to --manifests DIR; audit renders each Application with its own settings")
	case len(a.Apps) == 0 && len(a.ArgocdCM) == 0:
		return nil, Usagef("name the Application or ApplicationSet files to audit (APP.yaml...), or --argocd-cm")
	}
	if err := a.confine(env); err != nil {
		return nil, err
	}
	var rep *audit.Report
	err := env.within(ctx, a.Rendering, func(ctx context.Context) (err error) {
		rep, err = a.run(ctx, env)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Result{Report: rep, Found: rep.Summary.Redundant > 0}, nil
}

func (a *Audit) run(ctx context.Context, env *Env) (*audit.Report, error) {
	read, used := env.inputs(ctx, &a.Helm, a.Rendering)
	found, err := argocd.Collect(a.Apps, a.ArgocdCM, read.All, func(file string) ([]byte, error) { return manifest.ReadFile(file, env.Sidecar.MaxInput) })
	if err != nil {
		return nil, err
	}
	env.Warn(found.Warnings...)
	st, err := env.Store(a.Operators)
	if err != nil {
		return nil, err
	}
	hist := audit.NewHistory(st)
	if len(a.Manifests) == 0 {
		if len(found.Applications) == 0 {
			return nil, Usagef("argocd-cm rules alone: give the applications' rendered manifests with --manifests FILE..., or Application files whose sources audit renders")
		}
		return a.renderApps(ctx, env, found, hist)
	}
	if len(a.Refs) == 0 {
		return nil, Usagef("audit needs at least one --operator NAME@VERSION with --manifests: the operator releases running in the cluster")
	}
	e, res, err := env.Engine(ctx, a.Operators)
	if err != nil {
		return nil, err
	}
	objs, err := read.All(a.Manifests)
	if err != nil {
		return nil, err
	}
	targets, err := audit.FillTargets(e, objs)
	if err != nil {
		return nil, err
	}
	rep := audit.Classify(found.Rules, targets, res, hist)
	if rep.Summary.Redundant == 0 {
		if err := helmUnused(&a.Helm, *used); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// engine is the engine of the --operator releases, compiled once per run.
func (a *Audit) engine(ctx context.Context, env *Env, cache *flagEngine) (*defaults.Engine, []*operators.Resolution, error) {
	if cache.e == nil {
		e, res, err := env.Engine(ctx, a.Operators)
		if err != nil {
			return nil, nil, err
		}
		cache.e, cache.res = e, res
	}
	return cache.e, cache.res, nil
}

type flagEngine struct {
	e   *defaults.Engine
	res []*operators.Resolution
}

// pluginSource renders an Application source that names the cmp-defaults
// plugin exactly as generate renders it (argocd.Source.PluginConfig, and
// the same render and fill), in dir of the repository root. --operator,
// when given, overrides its operators.
func (a *Audit) pluginSource(ctx context.Context, env *Env, src *argocd.Source, dir, root string) ([]*audit.Target, []*operators.Resolution, error) {
	cfg, err := src.PluginConfig(dir, root, env.Sidecar)
	if err != nil {
		return nil, nil, err
	}
	if a.capabilities != nil && len(cfg.APIVersions) == 0 {
		cfg.APIVersions = a.capabilities(cfg.Operators) // KUBE_API_VERSIONS
	}
	if cfg.KubeVersion == "" {
		cfg.KubeVersion = a.kubeVersion // KUBE_VERSION
	}
	o := a.Operators
	o.Refs = o.refs()
	if len(o.Refs) == 0 || a.asArgoCD {
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
	j := cmpJob(cfg, env.selection(o, o.Refs), env.Sidecar)
	// audit's deadline is --timeout, not the Application's.
	j.Names, j.Record, j.Timeout = settings.CLI, true, a.timeout()
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
func appOperators(src *argocd.Source, cfg *cmpenv.Config) error {
	field := src.Field + ".plugin.env CMP_DEFAULTS_OPERATORS"
	if strings.HasPrefix(cfg.From[settings.Operators], "parameter") {
		field = src.Field + ".plugin.parameters operators"
	}
	for _, ref := range cfg.Operators {
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
