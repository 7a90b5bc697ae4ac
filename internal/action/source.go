package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// Helm are the Helm settings of a chart source, as helm spells them.
type Helm struct {
	Values, Set, SetString, SetJSON, SetFile []string
	Namespace, ReleaseName                   string
}

// settings are the render settings given by these flags.
func (h *Helm) settings() render.Settings {
	return render.Settings{ValuesFiles: h.Values, Set: h.Set, SetString: h.SetString, SetJSON: h.SetJSON, SetFile: h.SetFile,
		Namespace: h.Namespace, ReleaseName: h.ReleaseName}
}

// Given reports whether any setting was given.
func (h *Helm) Given() bool {
	return len(h.Values)+len(h.Set)+len(h.SetString)+len(h.SetJSON)+len(h.SetFile) > 0 || h.Namespace != "" || h.ReleaseName != ""
}

// reader reads a command's FILE, '-' and DIR arguments within the run's
// limits; dir renders the directories.
func (env *Env) reader(dir func(string) ([]manifest.Object, error)) *manifest.Reader {
	lim := env.Sidecar.Limits
	lim.Warn = env.warnDuplicate
	return &manifest.Reader{Stdin: env.Stdin, MaxBytes: env.Sidecar.MaxInput, Limits: lim, Dir: dir}
}

// inputs reads FILE, '-' and DIR arguments; directories render with h
// (empty: default settings, release name = directory name) inside ren's
// repository root, each under its deadline. used reports whether a
// directory took h.
func (env *Env) inputs(ctx context.Context, h *Helm, ren Rendering) (r *manifest.Reader, used *bool) {
	used = new(bool)
	r = env.reader(func(dir string) ([]manifest.Object, error) {
		var s render.Settings // default settings, unless given
		if h.Given() {
			s = h.settings()
		}
		opt, err := render.NewOptions(dir, ren.RepoRoot, env.Sidecar.MaxInput, env.Sidecar.Limits, s)
		if err != nil {
			return nil, err
		}
		opt.Timeout = ren.timeout()
		opt.Origins = true // a command's inputs: locate each object (explain, errors)
		if h.Given() {
			if opt.Kind, err = render.Detect(opt.Dir); err != nil {
				return nil, err
			}
			if err := unusedSettings(flags, opt.Kind, dir, render.Unused(opt.Kind, opt, h.ReleaseName != "", h.Namespace != "")); err != nil {
				return nil, err
			}
			*used = true
		}
		opt.Warn = env.warnDuplicate
		objs, err := render.Render(ctx, opt)
		return objs, settingError(flags, err, h.ReleaseName != "")
	})
	return r, used
}

// readAll reads args with h, and refuses Helm settings that no directory
// argument took: the user believes they did something.
func (env *Env) readAll(ctx context.Context, h *Helm, ren Rendering, args []string) ([]manifest.Object, error) {
	r, used := env.inputs(ctx, h, ren)
	objs, err := r.All(args)
	if err == nil {
		err = helmUnused(h, *used)
	}
	return objs, err
}

func helmUnused(h *Helm, used bool) error {
	if h.Given() && !used {
		return Usagef("-f/--values, --set*, -n/--namespace and --release-name apply to a directory argument that is a Helm chart; none was given")
	}
	return nil
}

// settingError names a render setting whose value cannot be used as the
// user gave it: a usage error on the command line, a configuration error
// naming the parameter or variable under Argo CD. releaseNameSet says
// whether the release name was given or is the default (the directory's
// name; under Argo CD the Application's).
func settingError(n plugin.Names, err error, releaseNameSet bool) error {
	var se *render.SettingError
	if !errors.As(err, &se) {
		if errors.Is(err, render.ErrOutsideRoot) && !n.Plugin {
			return fmt.Errorf("%w\n(the repository root is the nearest parent directory with .git, else the source directory; if the repository starts higher up, name its top directory with --repo-root)", err)
		}
		return err
	}
	name := n.Of(se.Key)
	if name == "" {
		name = se.Key
	}
	// A release name nobody set is a default that may not fit Helm's
	// rules (53 characters): say where it came from and what sets it.
	defaulted := se.Key == "release-name" && !releaseNameSet
	if !n.Plugin {
		if defaulted {
			return UsageError{fmt.Errorf("%s; set --release-name", se.Named("the release name (the directory's name)"))}
		}
		return UsageError{errors.New(se.Named(name))}
	}
	if defaulted {
		return ConfigError{fmt.Errorf("%s; set the parameter release-name", se.Named("the release name (the Application's name, ARGOCD_APP_NAME)"))}
	}
	return ConfigError{errors.New(se.Named(name))}
}

// unusedSettings refuses settings that do nothing for this kind of source
// (render.Unused): the user believes they apply. dir is as the user named it.
func unusedSettings(n plugin.Names, kind render.Kind, dir string, unused []string) error {
	if len(unused) == 0 {
		return nil
	}
	msg := render.UnusedMessage(kind, dir, unused, n.Of)
	if n.Plugin {
		return ConfigError{errors.New(msg + "; remove them from the Application")}
	}
	return UsageError{errors.New(msg + "; remove them")}
}
