// Package pipeline is the path of render and generate: render a source,
// fill every object, encode the stream -- under one deadline and the run's
// memory budget, saying on failure which step was running.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// Options of one run.
type Options struct {
	Render      render.Options
	Timeout     time.Duration
	TimeoutName string // the setting that raises Timeout, for the message
	// RefuseEmpty makes an empty result an error: with prune: true it
	// deletes every resource of the application.
	RefuseEmpty bool
	// Plugin: under Argo CD an empty directory source is an empty result
	// unless RefuseEmpty, and errors point at the allow-empty parameter.
	Plugin bool
	// Format, when set, encodes the filled objects into Out.
	Format string
	Out    io.Writer
	// Record, when set, sees every filled field with its object's index.
	Record func(i int, f defaults.Filled)
	// APIVersions the cluster serves (KUBE_API_VERSIONS), when known:
	// Warn hears of selected kinds it does not serve (UnservedKinds).
	APIVersions []string
	Warn        func(string)
}

// Hooks are the caller's decisions.
type Hooks struct {
	// Load selects the operator releases and compiles their engine.
	Load func() (*defaults.Engine, []*operators.Resolution, error)
	// Settings refuses settings that do nothing for a source of this kind.
	Settings func(kind render.Kind, opt render.Options) error
	// Filled sees the releases and the filled objects (warnings, or an
	// error in strict mode).
	Filled func(res []*operators.Resolution, objs []manifest.Object) error
}

// Run renders, fills and encodes. ctx ends the run early (a signal, the
// memory budget); opt.Timeout bounds it.
func Run(parent context.Context, opt Options, h Hooks) ([]manifest.Object, []*operators.Resolution, error) {
	ctx, cancel := context.WithTimeout(parent, opt.Timeout)
	defer cancel()
	ropt := opt.Render
	ropt.Timeout = 0 // the run's deadline covers the render
	ropt.Warn = opt.Warn
	step := "loading profiles"
	fail := func(err error) ([]manifest.Object, []*operators.Resolution, error) {
		if cause := context.Cause(ctx); errors.Is(cause, guard.ErrMemory) {
			return nil, nil, fmt.Errorf("while %s: %w", step, cause)
		}
		if parent.Err() != nil {
			return nil, nil, fmt.Errorf("interrupted while %s", step)
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, nil, fmt.Errorf("gave up after %s while %s; make the source smaller or raise %s (Argo CD kills the plugin at its own 60s deadline)", opt.Timeout, step, opt.TimeoutName)
		}
		return nil, nil, err
	}
	type loaded struct {
		e   *defaults.Engine
		res []*operators.Resolution
	}
	l, err := guard.Within(ctx, func() (loaded, error) {
		e, res, err := h.Load()
		return loaded{e, res}, err
	})
	if err != nil {
		return fail(err)
	}
	e, res := l.e.WithContext(ctx), l.res
	if opt.Warn != nil {
		for _, w := range UnservedKinds(res, opt.APIVersions) {
			opt.Warn(w)
		}
	}
	kind, err := render.Detect(ropt.Dir)
	if err != nil {
		return fail(err)
	}
	ropt.Kind = kind
	if h.Settings != nil {
		if err := h.Settings(kind, ropt); err != nil {
			return fail(err)
		}
	}
	step = fmt.Sprintf("rendering the %s source %s", kind, ropt.Dir)
	objs, err := render.Render(ctx, ropt)
	if errors.Is(err, render.ErrNoSources) && opt.Plugin {
		if !opt.RefuseEmpty {
			objs, err = nil, nil // allow-empty: an empty directory is an empty result
		} else {
			err = fmt.Errorf("%w; if an empty application is intended, set the parameter allow-empty to \"true\"", err)
		}
	}
	if err != nil {
		return fail(err)
	}
	if len(objs) == 0 && opt.RefuseEmpty {
		return fail(fmt.Errorf("the %s source %s rendered no objects; refusing to print an empty result, which with prune: true deletes every resource of the application. Set the parameter allow-empty to \"true\" if this is intended", kind, ropt.Dir))
	}
	step = fmt.Sprintf("filling %d objects", len(objs))
	for i := range objs {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		var rec func(defaults.Filled)
		if opt.Record != nil {
			rec = func(f defaults.Filled) { opt.Record(i, f) }
		}
		if err := e.FillObject(objs[i], rec); err != nil {
			if kind == render.KindKustomize && !ropt.Origins {
				err = locate(ctx, ropt, e, i, len(objs), err)
			}
			return fail(err)
		}
	}
	if h.Filled != nil {
		if err := h.Filled(res, objs); err != nil {
			return fail(err)
		}
	}
	if opt.Format == "" {
		return objs, res, nil
	}
	step = fmt.Sprintf("encoding %d objects", len(objs))
	enc, err := manifest.NewEncoder(opt.Out, opt.Format)
	if err != nil {
		return fail(err)
	}
	for _, ob := range objs {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		if err := enc.Encode(ob); err != nil {
			return fail(err)
		}
	}
	if err := enc.Close(); err != nil {
		return fail(err)
	}
	return objs, res, nil
}

// Stream is the path of fill: objects are filled and encoded one by one as
// they are decoded, so that the input is never held whole.
type Stream struct {
	Timeout     time.Duration
	TimeoutName string // the setting that raises Timeout, for the message
	Format      string
	Out         io.Writer
	// Filled, when set, sees each object once it is filled (warnings, or
	// an error in strict mode).
	Filled func(manifest.Object) error
}

// Run fills every object each reads with e, under s.Timeout and ctx.
func (s Stream) Run(parent context.Context, e *defaults.Engine, each func(func(manifest.Object) error) error) error {
	enc, err := manifest.NewEncoder(s.Out, s.Format)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(parent, s.Timeout)
	defer cancel()
	e = e.WithContext(ctx)
	err = each(func(ob manifest.Object) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err := e.FillObject(ob, nil); err != nil {
			return err
		}
		if s.Filled != nil {
			if err := s.Filled(ob); err != nil {
				return err
			}
		}
		return enc.Encode(ob)
	})
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, context.DeadlineExceeded) {
			return fmt.Errorf("gave up after %s while filling; raise %s if the input is meant to be this large", s.Timeout, s.TimeoutName)
		}
		return cause
	}
	if err != nil {
		return err
	}
	return enc.Close()
}

// locate tells where in a Kustomize source the object whose fill failed
// came from: the build is run again with kustomize's origin tracking (slower,
// so only now) and the object filled again, for the error that names the
// file. Anything going wrong there keeps the first error.
func locate(ctx context.Context, ropt render.Options, e *defaults.Engine, i, n int, err error) error {
	ropt.Origins = true
	objs, rerr := render.Render(ctx, ropt)
	if rerr != nil || len(objs) != n {
		return err
	}
	if ferr := e.FillObject(objs[i], nil); ferr != nil {
		return ferr
	}
	return err
}
