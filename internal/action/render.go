package action

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/pipeline"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Job is one resolved render and fill of a source directory: what the
// pipeline runs, and how messages name its settings (flags on the command
// line; under Argo CD the parameter or variable that set each one). It is
// built before anything runs, by Render.Job from flags or GenerateJob from
// the CMP environment.
type Job struct {
	pipeline.Job
	Names plugin.Names
}

// Render renders a source directory and fills it: a local preview of
// Generate, with flags instead of the CMP environment.
type Render struct {
	Operators
	Helm
	Rendering
	Dir              string
	KubeVersion      string
	APIVersions      []string // comma lists allowed
	Include, Exclude string
	Format           string // yaml or json
}

// NewRender is a render of the current directory with the defaults of
// the flags.
func NewRender() *Render {
	return &Render{Dir: ".", Rendering: Rendering{Timeout: settings.DefaultTimeout}, Format: "yaml"}
}

// Job is the job the flags ask for, with the sidecar settings side.
func (r *Render) Job(side plugin.Sidecar) (Job, error) {
	s := r.Helm.settings()
	s.Include, s.Exclude = r.Include, r.Exclude
	s.KubeVersion, s.APIVersions = r.KubeVersion, plugin.SplitList(r.APIVersions...)
	src, err := render.NewOptions(r.Dir, r.RepoRoot, side.MaxInput, s)
	return Job{Job: pipeline.Job{Source: src, Selection: selection(r.Operators, r.Refs, side), Timeout: r.timeout(), TimeoutName: flags.Of("timeout"),
		ReleaseNameSet: r.ReleaseName != "", NamespaceSet: r.Namespace != "", Format: r.Format}, Names: flags}, err
}

func (r *Render) Run(ctx context.Context, env *Env) (*Result, error) {
	j, err := r.Job(env.Sidecar)
	if err != nil {
		return nil, err
	}
	res, err := env.runJob(ctx, j)
	if err != nil {
		return nil, err
	}
	if len(j.Selection.Refs) == 0 {
		// Only on success: it must not precede an unrelated error.
		env.Warn("no --operator selected; objects are rendered but not filled")
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
	res, err := env.runJob(ctx, j)
	if err != nil {
		return nil, err
	}
	return &Result{Output: res.Output}, nil
}

// GenerateJob is generate's job: the configuration the CMP environment
// environ gives for the application in wd, with the sidecar settings side
// (read by main from the same environment). It reads nothing else. The
// warnings are the configuration's, returned on error too.
func GenerateJob(environ []string, wd string, side plugin.Sidecar) (Job, []string, error) {
	if wd == "" {
		return Job{}, nil, errors.New("the working directory (the application's path) is unknown")
	}
	cfg, err := plugin.FromEnv(environ, wd, side)
	if err != nil {
		return Job{}, nil, ConfigError{err}
	}
	if len(cfg.Operators) == 0 {
		return Job{}, cfg.Warnings, ConfigError{plugin.ErrNoOperators}
	}
	j := Job{Job: cmpJob(cfg, selection(Operators{Strict: cfg.Strict}, cfg.Operators, side), side.MaxInput), Names: plugin.Names{Plugin: true, From: cfg.From}}
	// Argo CD reads JSON as it reads YAML (docs/architecture.md), and JSON is
	// several times cheaper to write.
	j.Format, j.Served, j.TimeoutName = manifest.JSONStream, cfg.APIVersions, j.Names.Of("timeout")
	j.Defaults = sidecarDefaults(j.Names)
	return j, cfg.Warnings, nil
}

// sidecarDefaults are the settings the sidecar's env set: an
// administrator's defaults for every application.
func sidecarDefaults(n plugin.Names) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(n.From)) {
		if len(n.ByUser([]string{k})) == 0 {
			out = append(out, k)
		}
	}
	return out
}

// cmpJob is the job of a CMP configuration (generate's, or an audited
// Application's): it renders and refuses an empty result as generate does.
func cmpJob(cfg *plugin.Config, sel operators.Selection, maxInput int64) pipeline.Job {
	// AppDir is absolute already: NewOptions cannot fail.
	src, _ := render.NewOptions(cfg.AppDir, cfg.RepoRoot, maxInput, render.Settings{
		ValuesFiles: cfg.ValuesFiles, Values: cfg.Values, Set: cfg.Set, Namespace: cfg.Namespace,
		Include: cfg.Include, Exclude: cfg.Exclude, KubeVersion: cfg.KubeVersion, APIVersions: cfg.APIVersions})
	// Argo CD's release name is the Application's, never the directory's.
	src.ReleaseName = cfg.ReleaseName
	return pipeline.Job{Source: src, Selection: sel, Timeout: cfg.Timeout, AllowEmpty: cfg.AllowEmpty, CMP: true,
		ReleaseNameSet: cfg.From["release-name"] != "", NamespaceSet: cfg.From["namespace"] != ""}
}

// selection is the releases refs name, with o's profile directories (else
// the sidecar's) and strictness.
func selection(o Operators, refs []string, side plugin.Sidecar) operators.Selection {
	dirs := o.ProfileDirs
	if len(dirs) == 0 {
		dirs = side.ProfileDirs
	}
	return operators.Selection{Refs: plugin.SplitList(refs...), Dirs: dirs, Strict: o.Strict}
}

// runJob runs j with the profiles already read in this run, tells the
// supervisor its deadline, and names the setting of an error as j's user
// gives it.
func (env *Env) runJob(ctx context.Context, j Job) (*pipeline.Result, error) {
	if env.store != nil && slices.Equal(env.storeDirs, j.Selection.Dirs) {
		j.Store = env.store
	}
	env.deadline(j.Timeout, j.TimeoutName)
	res, err := pipeline.Run(ctx, j.Job)
	if res.StoreRead {
		env.store, env.storeDirs = res.Store, j.Selection.Dirs
	}
	env.Warn(res.Warnings...)
	return res, j.named(err)
}

// named names the setting an error of the pipeline is about.
func (j Job) named(err error) error {
	var unused *pipeline.UnusedError
	var strict *pipeline.StrictError
	switch {
	case errors.As(err, &unused):
		return unusedSettings(j.Names, unused.Kind, unused.Dir, unused.Unused)
	case errors.As(err, &strict):
		return strictError(j.Names, strict.Msg)
	}
	return settingError(j.Names, selectionError(j.Names, err), j.ReleaseNameSet)
}
