// Package pipeline is the path of render and generate: render a source,
// fill every object, encode the stream -- under one deadline and the run's
// memory budget, saying on failure which step was running. It runs a Job,
// resolved before it starts, and returns what it made: nothing in it calls
// back into its caller.
package pipeline

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
	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// Job is one run of render or generate (or audit of a plugin
// Application): every setting resolved, from flags or from the CMP
// environment.
type Job struct {
	// Source is what to render and how: directory, repository root, Helm
	// and directory settings, Helm capabilities, the input limit. Its Kind,
	// Timeout and Warn are the pipeline's.
	Source    render.Options
	Selection operators.Selection
	// Store holds the profiles of Selection.Dirs when the caller has them
	// already; nil: they are read within the deadline.
	Store       *operators.Store
	Timeout     time.Duration
	TimeoutName string // the setting that raises Timeout, for the message
	// AllowEmpty: an empty result is printed. Without it, a job configured
	// as the plugin (CMP) refuses one: with prune: true it deletes every
	// resource of the application.
	AllowEmpty bool
	// CMP: the job is configured as Argo CD's CMP server configures
	// generate (an Application's parameters and plugin env): an empty
	// directory source is an empty result with AllowEmpty, and refusals
	// point at the allow-empty parameter.
	CMP bool
	// ReleaseNameSet and NamespaceSet say whether the release name and
	// namespace were chosen, not defaulted; Defaults lists the settings (by
	// parameter name) an administrator set for every application (the
	// sidecar's env). Only chosen settings that would do nothing for the
	// source are refused (UnusedError).
	ReleaseNameSet, NamespaceSet bool
	Defaults                     []string
	// Served is what the cluster serves (KUBE_API_VERSIONS), when known:
	// selected kinds it does not serve are warned about.
	Served []string
	// Format, when set, encodes the filled objects into Result.Output.
	Format string
	// Record keeps every filled field by object (Result.Filled).
	Record bool
}

// Result is what a job made. Warnings are kept on failure too, in the
// order they arose (the first of each kind), so that they can precede the
// error.
type Result struct {
	Objects  []manifest.Object
	Releases []*operators.Resolution
	Store    *operators.Store
	// StoreRead says the store was read by this run (not Job.Store): its
	// warnings are among Warnings.
	StoreRead bool
	Warnings  warn.List
	Filled    [][]defaults.Filled // with Job.Record: by object index
	Output    []byte              // with Job.Format: the encoded stream
}

// UnusedError refuses settings that would do nothing for the source
// (render.Unused): the user believes they apply.
type UnusedError struct {
	Kind   render.Kind
	Dir    string
	Unused []string // parameter names
}

func (e *UnusedError) Error() string {
	return render.UnusedMessage(e.Kind, e.Dir, e.Unused, func(s string) string { return s })
}

// StrictError is a warning that strict mode makes an error.
type StrictError struct{ Msg string }

func (e *StrictError) Error() string { return e.Msg }

// Run renders, fills and encodes. ctx ends the run early (a signal, the
// memory budget); job.Timeout bounds it.
func Run(parent context.Context, job Job) (*Result, error) {
	ctx, cancel := context.WithTimeout(parent, job.Timeout)
	defer cancel()
	r := &Result{Store: job.Store}
	ropt := job.Source
	ropt.Timeout = 0 // the run's deadline covers the render
	ropt.Warn = func(m string) { r.Warnings.Add(warn.DuplicateKeys, m) }
	step := "loading profiles"
	fail := func(err error) (*Result, error) {
		if cause := context.Cause(ctx); errors.Is(cause, guard.ErrMemory) {
			return r, fmt.Errorf("while %s: %w", step, cause)
		}
		if parent.Err() != nil {
			return r, fmt.Errorf("interrupted while %s", step)
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return r, fmt.Errorf("gave up after %s while %s; make the source smaller or raise %s (Argo CD kills the plugin at its own 60s deadline)", job.Timeout, step, job.TimeoutName)
		}
		return r, err
	}
	type loaded struct {
		*Loaded
		read     bool
		warnings []string // the store's, when read here
	}
	l, err := guard.Within(ctx, func() (loaded, error) {
		st, out := job.Store, loaded{}
		var err error
		if st == nil {
			if st, err = LoadStore(job.Selection.Dirs); err != nil {
				return out, err
			}
			out.read, out.warnings = true, st.Warnings
		}
		out.Loaded, err = LoadSelection(ctx, st, job.Selection)
		return out, err
	})
	r.StoreRead = l.read
	r.Warnings.Add(warn.General, l.warnings...)
	if l.Loaded != nil {
		r.Store = l.Store
		r.Warnings.Add(warn.General, l.Warnings...)
	}
	if err != nil {
		return fail(err)
	}
	e := l.Engine.WithContext(ctx)
	r.Releases = l.Releases
	r.Warnings.Add(warn.General, UnservedKinds(l.Releases, job.Served)...)
	kind, err := render.Detect(ropt.Dir)
	if err != nil {
		return fail(err)
	}
	ropt.Kind = kind
	if unused := chosen(render.Unused(kind, ropt, job.ReleaseNameSet, job.NamespaceSet), job.Defaults); len(unused) > 0 {
		return fail(&UnusedError{Kind: kind, Dir: ropt.Dir, Unused: unused})
	}
	step = fmt.Sprintf("rendering the %s source %s", kind, quote.Name(ropt.Dir))
	objs, err := render.Render(ctx, ropt)
	if errors.Is(err, render.ErrNoSources) && job.CMP {
		if job.AllowEmpty {
			objs, err = nil, nil // allow-empty: an empty directory is an empty result
		} else {
			err = fmt.Errorf("%w; if an empty application is intended, set the parameter allow-empty to \"true\"", err)
		}
	}
	if err != nil {
		return fail(err)
	}
	if len(objs) == 0 && job.CMP && !job.AllowEmpty {
		return fail(fmt.Errorf("the %s source %s rendered no objects; refusing to print an empty result, which with prune: true deletes every resource of the application. Set the parameter allow-empty to \"true\" if this is intended", kind, quote.Name(ropt.Dir)))
	}
	step = fmt.Sprintf("filling %d objects", len(objs))
	if job.Record {
		r.Filled = make([][]defaults.Filled, len(objs))
	}
	for i := range objs {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		var rec func(defaults.Filled)
		if job.Record {
			rec = func(f defaults.Filled) { r.Filled[i] = append(r.Filled[i], f) }
		}
		if err := e.FillObject(objs[i], rec); err != nil {
			if kind == render.KindKustomize && !ropt.Origins {
				err = locate(ctx, ropt, e, i, len(objs), err)
			}
			return fail(err)
		}
		ws, err := e.RewriteWarnings(objs[i])
		if err != nil {
			return fail(err)
		}
		r.Warnings.Add(warn.Rewrites, ws...)
	}
	u := Unserved{CMP: job.CMP}
	ws := u.Check(r.Store, r.Releases, objs)
	if job.Selection.Strict && len(ws) > 0 {
		return fail(&StrictError{ws[0]})
	}
	r.Warnings.Add(warn.General, ws...)
	r.Warnings.Add(warn.General, u.Hints...)
	r.Objects = objs
	if job.Format == "" {
		return r, nil
	}
	step = fmt.Sprintf("encoding %d objects", len(objs))
	var out bytes.Buffer
	enc, err := manifest.NewEncoder(&out, job.Format)
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
	r.Output = out.Bytes()
	return r, nil
}

// chosen drops from unused the settings set as defaults.
func chosen(unused, defaults []string) []string {
	var out []string
	for _, k := range unused {
		if !slices.Contains(defaults, k) {
			out = append(out, k)
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
