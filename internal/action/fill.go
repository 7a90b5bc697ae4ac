package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/diff"
	"github.com/cmp-defaults/cmp-defaults/internal/explain"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Fill fills a stream of objects from files, stdin or rendered directories.
type Fill struct {
	Operators
	Helm settings.Helm
	Rendering
	Args   []string
	Format string // yaml or json
}

// NewFill is a fill with the defaults of the flags.
func NewFill() *Fill {
	return &Fill{Rendering: Rendering{Timeout: settings.DefaultTimeout}, Format: "yaml"}
}

func (f *Fill) Run(ctx context.Context, env *Env) (*Result, error) {
	if err := env.confineInputs(f.Args, f.Rendering, env.selection(f.Operators, nil).Dirs); err != nil {
		return nil, err
	}
	e, res, err := env.Engine(ctx, f.Operators)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	// Stream: each object is filled and encoded as soon as it is decoded;
	// the output stays in memory until everything succeeded. Reserve room
	// for the output (filled YAML in block style is up to about twice the
	// input; pages never written cost no memory), and let the GC work
	// harder rather than let the heap double: the input streams through,
	// so the output is nearly all that lives.
	if n := manifest.Size(f.Args); n > 0 && n <= env.Sidecar.MaxInput {
		out.Grow(int(2 * n))
		guard.LowerMemoryLimit(48<<20 + 2*n)
	}
	r, used := env.inputs(ctx, &f.Helm, f.Rendering)
	n := 0
	err = env.stream(ctx, f.timeout(), e, res, f.Strict, &out, f.Format, func(fn func(manifest.Object) error) error {
		return r.Each(f.Args, func(ob manifest.Object) error { n++; return fn(ob) })
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		// As render refuses an empty source: an empty input is seldom meant
		// (a template that rendered nothing, the wrong file).
		const msg = "the input holds no objects, so nothing was filled"
		if f.Strict {
			return nil, strictError(settings.CLI, msg)
		}
		env.Warn(msg)
	}
	if len(f.Refs) == 0 {
		env.Warn("no --operator selected; objects pass through unchanged")
	}
	// What was made is returned with a refusal too; cmd/ prints nothing then.
	return &Result{Output: out.Bytes()}, helmUnused(&f.Helm, *used)
}

// stream fills and encodes every object each reads, one by one as they
// are decoded, so that the input is never held whole; d bounds it.
func (env *Env) stream(parent context.Context, d time.Duration, e *defaults.Engine, res []*operators.Resolution, strict bool,
	out io.Writer, format string, each func(func(manifest.Object) error) error) error {
	enc, err := manifest.NewEncoder(out, format)
	if err != nil {
		return err
	}
	env.deadline(d, settings.CLI.Of(settings.Timeout))
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	f := &filler{e: e.WithContext(ctx), store: env.store, releases: res, strict: strict,
		kinds: kindCheck{names: settings.CLI}, warnings: &env.Warnings}
	err = each(func(ob manifest.Object) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err := f.fill(ob, nil); err != nil {
			return err
		}
		if err := f.check([]manifest.Object{ob}); err != nil {
			return err
		}
		return enc.Encode(ob)
	})
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, context.DeadlineExceeded) {
			return fmt.Errorf("gave up after %s while filling; raise %s if the input is meant to be this large", d, settings.CLI.Of(settings.Timeout))
		}
		return cause
	}
	if err != nil {
		return err
	}
	return enc.Close()
}

// Explain reports, object by object, each field a fill sets and why.
type Explain struct {
	Operators
	Helm settings.Helm
	Rendering
	Args []string
}

func (x *Explain) Run(ctx context.Context, env *Env) (*Result, error) {
	if len(x.Refs) == 0 {
		return nil, Usagef("explain needs at least one --operator NAME@VERSION")
	}
	if err := env.confineInputs(x.Args, x.Rendering, env.selection(x.Operators, nil).Dirs); err != nil {
		return nil, err
	}
	e, res, err := env.Engine(ctx, x.Operators)
	if err != nil {
		return nil, err
	}
	var objs []manifest.Object
	err = env.within(ctx, x.Rendering, func(ctx context.Context) (err error) {
		objs, err = env.readAll(ctx, &x.Helm, x.Rendering, x.Args)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := env.checkUnserved(res, objs, x.Strict); err != nil {
		return nil, err
	}
	rep, err := explain.Fields(e, res, objs)
	if err != nil {
		return nil, err
	}
	return &Result{Report: rep}, nil
}

// DiffReleases compares two releases of one operator: their profiles, or
// their fills of the inputs. It returns Found when something changes.
type DiffReleases struct {
	Operators // directories and strictness; the releases are A and B
	Helm      settings.Helm
	Rendering
	A, B   string
	Inputs []string
}

func (d *DiffReleases) Run(ctx context.Context, env *Env) (*Result, error) {
	if err := diff.SameOperator(d.A, d.B); err != nil {
		return nil, UsageError{err}
	}
	if err := env.confineInputs(d.Inputs, d.Rendering, env.selection(d.Operators, nil).Dirs); err != nil {
		return nil, err
	}
	ea, ra, err := env.load(ctx, env.selection(d.Operators, []string{d.A}), settings.CLI)
	if err != nil {
		return nil, err
	}
	eb, rb, err := env.load(ctx, env.selection(d.Operators, []string{d.B}), settings.CLI)
	if err != nil {
		return nil, err
	}
	var rep interface {
		Report
		Changed() bool
	}
	if len(d.Inputs) == 0 {
		if err := helmUnused(&d.Helm, false); err != nil {
			return nil, err
		}
		rep = diff.Profiles(ra[0], rb[0])
	} else {
		// Directories are rendered (plain, Helm, Kustomize) as by fill.
		var objs []manifest.Object
		err := env.within(ctx, d.Rendering, func(ctx context.Context) (err error) {
			objs, err = env.readAll(ctx, &d.Helm, d.Rendering, d.Inputs)
			return err
		})
		if err != nil {
			return nil, err
		}
		if rep, err = diff.Fill(ea, eb, ra[0], rb[0], objs); err != nil {
			return nil, err
		}
	}
	return &Result{Report: rep, Found: rep.Changed()}, nil
}
