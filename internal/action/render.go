package action

import (
	"os"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/pipeline"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// Render renders a source directory and fills it: a local preview of
// Generate, with flags instead of the CMP environment.
type Render struct {
	Operators
	Helm
	Dir, RepoRoot    string
	KubeVersion      string
	APIVersions      []string // comma lists allowed
	Include, Exclude string
	Timeout          time.Duration // zero: plugin.DefaultTimeout
	Format           string        // yaml (the default) or json
}

func (r *Render) Run(env *Env) error {
	r.Timeout, r.Format = orDefault(r.Timeout, r.Format)
	opt, err := render.NewOptions(r.Dir, r.RepoRoot, env.Sidecar.MaxInput)
	if err != nil {
		return err
	}
	r.Helm.apply(&opt)
	opt.Include, opt.Exclude = r.Include, r.Exclude
	opt.KubeVersion, opt.APIVersions = r.KubeVersion, plugin.SplitList(r.APIVersions...)
	sel := env.selection(r.Operators, r.Refs)
	err = env.run(run{sel: sel, releaseNameSet: r.ReleaseName != "", namespaceSet: r.Namespace != "",
		Options: pipeline.Options{Render: opt, Timeout: r.Timeout, Format: r.Format}})
	err = env.settingError(err, r.ReleaseName != "")
	if err == nil && len(sel.Refs) == 0 {
		// Only on success: it must not precede an unrelated error.
		env.Warn("no --operator selected; objects are rendered but not filled")
	}
	return err
}

// Generate is what argocd-cmp-server runs: the current directory rendered
// and filled with the configuration of the CMP environment.
type Generate struct{}

func (Generate) Run(env *Env) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	cfg, err := plugin.FromEnv(env.Environ, wd)
	if err != nil {
		return ConfigError{err}
	}
	env.Warn(cfg.Warnings...)
	env.Names = plugin.Names{Plugin: true, From: cfg.From}
	if len(cfg.Operators) == 0 {
		return ConfigError{plugin.ErrNoOperators}
	}
	r := runOf(cfg, cfg.Selection(env.Sidecar.ProfileDirs))
	// Argo CD reads JSON as it reads YAML (docs/architecture.md), and JSON is
	// several times cheaper to write.
	r.Format, r.APIVersions = manifest.JSONStream, cfg.APIVersions
	return env.settingError(env.run(r), cfg.From["release-name"] != "")
}

// run is one render and fill as a command asks for it: the pipeline's
// options (Format set: encode into Out) and the releases.
type run struct {
	pipeline.Options
	sel            operators.Selection
	releaseNameSet bool // the release name was chosen, not defaulted
	namespaceSet   bool // the namespace was chosen, not defaulted
}

// runOf is the run generate's configuration asks for.
func runOf(cfg *plugin.Config, sel operators.Selection) run {
	return run{sel: sel, releaseNameSet: cfg.From["release-name"] != "", namespaceSet: cfg.From["namespace"] != "",
		Options: pipeline.Options{Render: cfg.RenderOptions(), Timeout: cfg.Timeout, RefuseEmpty: !cfg.AllowEmpty}}
}

// renderFill renders and fills as generate does (internal/pipeline), then
// encodes into Out when r.Format is set. record, when set, sees every
// filled field.
func (env *Env) renderFill(r run, record func(int, defaults.Filled)) ([]manifest.Object, []*operators.Resolution, error) {
	opt := r.Options
	opt.Render.MaxBytes = env.Sidecar.MaxInput
	opt.TimeoutName, opt.Plugin, opt.Record, opt.Out, opt.Warn = env.Names.Of("timeout"), env.Names.Plugin, record, env.Out, func(m string) { env.Warn(m) }
	env.deadline(opt.Timeout, opt.TimeoutName)
	return pipeline.Run(env.Ctx, opt, pipeline.Hooks{
		Load: func() (*defaults.Engine, []*operators.Resolution, error) { return env.load(r.sel) },
		Settings: func(kind render.Kind, ropt render.Options) error {
			return env.unusedSettings(kind, ropt, ropt.Dir, r.releaseNameSet, r.namespaceSet)
		},
		Filled: env.unservedCheck(r.sel.Strict),
	})
}

// orDefault gives a zero timeout and format of a render or fill their
// defaults, as the flags do.
func orDefault(timeout time.Duration, format string) (time.Duration, string) {
	if timeout == 0 {
		timeout = plugin.DefaultTimeout
	}
	if format == "" {
		format = "yaml"
	}
	return timeout, format
}

func (env *Env) run(r run) error {
	_, _, err := env.renderFill(r, nil)
	return err
}
