package action

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Render renders a source directory and fills it: a local preview of
// Generate, with flags instead of the CMP environment.
type Render struct {
	Operators
	Helm settings.Helm
	settings.Directory
	Rendering
	Dir    string
	Format string // yaml or json
}

// NewRender is a render of the current directory with the defaults of
// the flags.
func NewRender() *Render {
	return &Render{Dir: ".", Rendering: Rendering{Timeout: settings.DefaultTimeout}, Format: "yaml"}
}

// Job is the job the flags ask for, with the sidecar settings side.
func (r *Render) Job(side cmpenv.Sidecar) (Job, error) {
	h := r.Helm
	h.APIVersions = settings.SplitList(h.APIVersions...)
	src, err := render.NewOptions(r.Dir, r.RepoRoot, side.MaxInput, side.Limits, h, r.Directory)
	return Job{Source: src, Selection: selection(r.Operators, r.refs(), side.ProfileDirs), Names: settings.CLI, Timeout: r.timeout(),
		ReleaseNameSet: r.Helm.ReleaseName != "", NamespaceSet: r.Helm.Namespace != "", Format: r.Format}, err
}

func (r *Render) Run(ctx context.Context, env *Env) (*Result, error) {
	j, err := r.Job(env.Sidecar)
	if err != nil {
		return nil, err
	}
	res, err := env.printJob(ctx, j)
	if err != nil {
		return nil, err
	}
	if len(j.Selection.Refs) == 0 {
		// Only on success: it must not precede an unrelated error.
		env.Warn("no --operator selected; objects are rendered but not filled")
	}
	return res, nil
}

// printJob confines the worker to what j reads, then runs j for its
// encoded output.
func (env *Env) printJob(ctx context.Context, j Job) (*Result, error) {
	if err := env.confineJob(j); err != nil {
		return nil, err
	}
	res, err := env.runJob(ctx, j)
	if err != nil {
		return nil, err
	}
	return &Result{Output: res.Output}, nil
}

// Generate is what argocd-cmp-server runs: the working directory rendered
// and filled with the configuration of the CMP environment.
type Generate struct {
	Environ []string // the process environment, os.Environ form
	WorkDir string   // the application's directory
}

func (g *Generate) Run(ctx context.Context, env *Env) (*Result, error) {
	j, warnings, err := GenerateJob(g.Environ, g.WorkDir, env.Sidecar)
	env.Warn(warnings...)
	if err != nil {
		return nil, err
	}
	return env.printJob(ctx, j)
}

// GenerateJob is generate's job: the configuration the CMP environment
// environ gives for the application in wd, with the sidecar settings side
// (read by main from the same environment). It reads nothing else. The
// warnings are the configuration's, returned on error too.
func GenerateJob(environ []string, wd string, side cmpenv.Sidecar) (Job, []string, error) {
	if wd == "" {
		return Job{}, nil, errors.New("the working directory (the application's path) is unknown")
	}
	cfg, err := cmpenv.FromEnv(environ, wd, side)
	if err != nil {
		return Job{}, nil, ConfigError{err}
	}
	if len(cfg.Operators) == 0 {
		return Job{}, cfg.Warnings, ConfigError{cmpenv.ErrNoOperators}
	}
	j := cmpJob(cfg, selection(Operators{Strict: cfg.Strict}, cfg.Operators, side.ProfileDirs), side)
	j.Names = cfg.Names()
	// Argo CD reads JSON as it reads YAML (docs/architecture.md), and JSON is
	// several times cheaper to write.
	j.Format, j.Served = manifest.JSONStream, cfg.APIVersions
	j.Defaults = sidecarDefaults(j.Names)
	return j, cfg.Warnings, nil
}

// sidecarDefaults are the settings the sidecar's env set: an
// administrator's defaults for every application.
func sidecarDefaults(n settings.Names) []*settings.Setting {
	var out []*settings.Setting
	for _, s := range slices.SortedFunc(maps.Keys(n.From), func(a, b *settings.Setting) int { return strings.Compare(a.Name, b.Name) }) {
		if len(n.ByUser([]*settings.Setting{s})) == 0 {
			out = append(out, s)
		}
	}
	return out
}

// cmpJob is the job of a CMP configuration (generate's, or an audited
// Application's): it renders and refuses an empty result as generate does.
func cmpJob(cfg *cmpenv.Config, sel operators.Selection, side cmpenv.Sidecar) Job {
	// AppDir is absolute already: NewOptions cannot fail.
	src, _ := render.NewOptions(cfg.AppDir, cfg.RepoRoot, side.MaxInput, side.Limits, cfg.Helm, cfg.Directory)
	// Argo CD's release name is the Application's, never the directory's.
	src.ReleaseName = cfg.ReleaseName
	return Job{Source: src, Selection: sel, Timeout: cfg.Timeout, AllowEmpty: cfg.AllowEmpty, CMP: true,
		ReleaseNameSet: cfg.From[settings.ReleaseName] != "", NamespaceSet: cfg.From[settings.Namespace] != ""}
}
