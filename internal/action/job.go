package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/quote"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Job is one render and fill of a source directory (render, generate, or
// audit of a plugin Application), every setting resolved before it runs:
// by Render.Job from flags or GenerateJob from the CMP environment.
type Job struct {
	// Source is what to render and how; its Kind, Timeout and Warn are
	// the run's.
	Source    render.Options
	Selection operators.Selection
	// Names names the settings in messages: flags on the command line;
	// under Argo CD the parameter or variable that set each one.
	Names   settings.Names
	Timeout time.Duration
	// AllowEmpty: an empty result is printed. Without it, a job configured
	// as the plugin (CMP) refuses one: with prune: true it deletes every
	// resource of the application.
	AllowEmpty bool
	// CMP: the job is configured as Argo CD's CMP server configures
	// generate (an Application's parameters and plugin env): an empty
	// directory source is an empty result with AllowEmpty, refusals point
	// at the allow-empty parameter, hints at the operators parameter.
	CMP bool
	// ReleaseNameSet and NamespaceSet say whether the release name and
	// namespace were chosen, not defaulted; Defaults are the settings an
	// administrator set for every application (the sidecar's env). Only
	// chosen settings that would do nothing for the source are refused.
	ReleaseNameSet, NamespaceSet bool
	Defaults                     []*settings.Setting
	// Served is what the cluster serves (KUBE_API_VERSIONS), when known:
	// selected kinds it does not serve are warned about.
	Served []string
	// Format, when set, encodes the filled objects into the output.
	Format string
	// Record keeps every filled field by object (jobResult.Filled).
	Record bool
}

// TimeoutName is the setting that raises the job's timeout, as its user
// spells it.
func (j Job) TimeoutName() string { return j.Names.Of(settings.Timeout) }

// jobResult is what a job made; its warnings are the Env's.
type jobResult struct {
	Objects  []manifest.Object
	Releases []*operators.Resolution
	Filled   [][]defaults.Filled // with Job.Record: by object index
	Output   []byte              // with Job.Format: the encoded stream
}

// runJob renders, fills and encodes under the job's deadline and ctx (a
// signal, the memory budget), saying on failure which step was running
// and naming settings as the job's user gives them.
func (env *Env) runJob(parent context.Context, j Job) (*jobResult, error) {
	env.deadline(j.Timeout, j.TimeoutName())
	ctx, cancel := context.WithTimeout(parent, j.Timeout)
	defer cancel()
	step := "loading profiles"
	r := &jobResult{}
	err := j.run(ctx, env, r, &step)
	if err == nil {
		return r, nil
	}
	if cause := context.Cause(ctx); errors.Is(cause, guard.ErrMemory) {
		return nil, fmt.Errorf("while %s: %w", step, cause)
	}
	if parent.Err() != nil {
		return nil, fmt.Errorf("interrupted while %s", step)
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return nil, fmt.Errorf("gave up after %s while %s; make the source smaller or raise %s (Argo CD kills the plugin at its own 60s deadline)", j.Timeout, step, j.TimeoutName())
	}
	return nil, err
}

// run is runJob's steps; step names the one running.
func (j Job) run(ctx context.Context, env *Env, r *jobResult, step *string) error {
	type sel struct {
		e   *defaults.Engine
		res []*operators.Resolution
	}
	s, err := guard.Within(ctx, func() (sel, error) {
		e, res, err := env.load(ctx, j.Selection, j.Names)
		return sel{e, res}, err
	})
	if err != nil {
		return err
	}
	r.Releases = s.res
	env.Warn(unservedKinds(s.res, j.Served)...)
	f := &filler{e: s.e, store: env.store, releases: s.res, strict: j.Selection.Strict,
		kinds: kindCheck{names: j.Names, cmp: j.CMP}, warnings: &env.Warnings}
	ropt, objs, err := j.render(ctx, env, step)
	if err != nil {
		return err
	}
	*step = fmt.Sprintf("filling %d objects", len(objs))
	if j.Record {
		r.Filled = make([][]defaults.Filled, len(objs))
	}
	for i := range objs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var rec func(defaults.Filled)
		if j.Record {
			rec = func(d defaults.Filled) { r.Filled[i] = append(r.Filled[i], d) }
		}
		if err := f.fill(objs[i], rec); err != nil {
			if ropt.Kind == render.KindKustomize && !ropt.Origins {
				err = locate(ctx, ropt, f.e, i, len(objs), err)
			}
			return err
		}
	}
	if err := f.check(objs); err != nil {
		return err
	}
	r.Objects = objs
	if j.Format == "" {
		return nil
	}
	*step = fmt.Sprintf("encoding %d objects", len(objs))
	r.Output, err = encode(ctx, j.Format, objs)
	return err
}

// render detects the kind of the job's source, refuses settings chosen
// for it that would do nothing, and renders it within ctx.
func (j Job) render(ctx context.Context, env *Env, step *string) (render.Options, []manifest.Object, error) {
	ropt := j.Source
	ropt.Timeout = 0 // the run's deadline covers the render
	ropt.Warn = env.warnDuplicate
	kind, err := render.Detect(ropt.Dir)
	if err != nil {
		return ropt, nil, err
	}
	ropt.Kind = kind
	unused := chosen(render.Unused(kind, ropt, j.ReleaseNameSet, j.NamespaceSet), j.Defaults)
	if err := unusedSettings(j.Names, kind, ropt.Dir, unused); err != nil {
		return ropt, nil, err
	}
	*step = fmt.Sprintf("rendering the %s source %s", kind, quote.Name(ropt.Dir))
	objs, err := render.Render(ctx, ropt)
	if errors.Is(err, render.ErrNoSources) && j.CMP {
		if j.AllowEmpty {
			objs, err = nil, nil // allow-empty: an empty directory is an empty result
		} else {
			err = fmt.Errorf("%w; if an empty application is intended, set the parameter allow-empty to \"true\"", err)
		}
	}
	if err != nil {
		return ropt, nil, settingError(j.Names, err, j.ReleaseNameSet)
	}
	if len(objs) == 0 && j.CMP && !j.AllowEmpty {
		return ropt, nil, fmt.Errorf("the %s source %s rendered no objects; refusing to print an empty result, which with prune: true deletes every resource of the application. Set the parameter allow-empty to \"true\" if this is intended", kind, quote.Name(ropt.Dir))
	}
	return ropt, objs, nil
}

// encode writes objs in format, stopping when ctx ends.
func encode(ctx context.Context, format string, objs []manifest.Object) ([]byte, error) {
	var out bytes.Buffer
	enc, err := manifest.NewEncoder(&out, format)
	if err != nil {
		return nil, err
	}
	for _, ob := range objs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := enc.Encode(ob); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// chosen drops from unused the settings set as defaults.
func chosen(unused, defaults []*settings.Setting) []*settings.Setting {
	var out []*settings.Setting
	for _, s := range unused {
		if !slices.Contains(defaults, s) {
			out = append(out, s)
		}
	}
	return out
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
