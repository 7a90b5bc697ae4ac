package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

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
func (env *Env) inputs(ctx context.Context, h *settings.Helm, ren Rendering) (r *manifest.Reader, used *bool) {
	used = new(bool)
	r = env.reader(func(dir string) ([]manifest.Object, error) {
		var s settings.Helm // default settings, unless given
		if h.Chosen() {
			s = *h
		}
		opt, err := render.NewOptions(dir, ren.RepoRoot, env.Sidecar.MaxInput, env.Sidecar.Limits, s, settings.Directory{})
		if err != nil {
			return nil, err
		}
		opt.Timeout = ren.timeout()
		opt.Origins = true // a command's inputs: locate each object (explain, errors)
		if h.Chosen() {
			if opt.Kind, err = render.Detect(opt.Dir); err != nil {
				return nil, err
			}
			if err := unusedSettings(settings.CLI, opt.Kind, dir, render.Unused(opt.Kind, opt, h.ReleaseName != "", h.Namespace != "")); err != nil {
				return nil, err
			}
			*used = true
		}
		opt.Warn = env.warnDuplicate
		objs, err := render.Render(ctx, opt)
		return objs, settingError(settings.CLI, err, h.ReleaseName != "")
	})
	return r, used
}

// readAll reads args with h, and refuses Helm settings that no directory
// argument took: the user believes they did something.
func (env *Env) readAll(ctx context.Context, h *settings.Helm, ren Rendering, args []string) ([]manifest.Object, error) {
	r, used := env.inputs(ctx, h, ren)
	objs, err := r.All(args)
	if err == nil {
		err = helmUnused(h, *used)
	}
	return objs, err
}

func helmUnused(h *settings.Helm, used bool) error {
	if h.Chosen() && !used {
		return Usagef("-f/--values, --set*, -n/--namespace, --release-name and --skip-schema-validation apply to a directory argument that is a Helm chart; none was given")
	}
	return nil
}

// settingError names a render setting whose value cannot be used as the
// user gave it: a usage error on the command line, a configuration error
// naming the parameter or variable under Argo CD. releaseNameSet says
// whether the release name was given or is the default (the directory's
// name; under Argo CD the Application's).
func settingError(n settings.Names, err error, releaseNameSet bool) error {
	var se *render.SettingError
	if !errors.As(err, &se) {
		if errors.Is(err, render.ErrOutsideRoot) && !n.CMP {
			return fmt.Errorf("%w\n(the repository root is the nearest parent directory with .git, else the source directory; if the repository starts higher up, name its top directory with --repo-root)", err)
		}
		return err
	}
	name := n.Of(se.Setting)
	// A release name nobody set is a default that may not fit Helm's
	// rules (53 characters): say where it came from and what sets it.
	defaulted := se.Setting == settings.ReleaseName && !releaseNameSet
	if !n.CMP {
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
func unusedSettings(n settings.Names, kind render.Kind, dir string, unused []*settings.Setting) error {
	if len(unused) == 0 {
		return nil
	}
	msg := render.UnusedMessage(kind, dir, unused, n.Of)
	if n.CMP {
		return ConfigError{errors.New(msg + "; remove them from the Application")}
	}
	return UsageError{errors.New(msg + "; remove them")}
}
