package action

import (
	"errors"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/diff"
	"github.com/cmp-defaults/cmp-defaults/internal/explain"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/pipeline"
)

// Fill fills a stream of objects from files, stdin or rendered directories.
type Fill struct {
	Operators
	Helm
	Args    []string
	Timeout time.Duration // zero: settings.DefaultTimeout
	Format  string        // yaml (the default) or json
}

func (f *Fill) Run(env *Env) error {
	f.Timeout, f.Format = orDefault(f.Timeout, f.Format)
	e, res, err := env.Engine(f.Operators)
	if err != nil {
		return err
	}
	// Stream: each object is filled and encoded as soon as it is decoded;
	// the output stays in memory until everything succeeded. Reserve room
	// for the output (filled YAML in block style is up to about twice the
	// input; pages never written cost no memory), and let the GC work
	// harder rather than let the heap double: the input streams through,
	// so the output is nearly all that lives.
	if n := input.Size(f.Args); n > 0 && n <= env.Sidecar.MaxInput {
		env.Out.Grow(int(2 * n))
		guard.LowerMemoryLimit(48<<20 + 2*n)
	}
	env.deadline(f.Timeout, flags.Of("timeout"))
	r, used := env.inputs(&f.Helm)
	st := pipeline.Stream{Timeout: f.Timeout, TimeoutName: flags.Of("timeout"), Format: f.Format, Out: env.Out,
		Store: env.store, Releases: res, Strict: f.Strict}
	ws, err := st.Run(env.Ctx, e, func(fn func(manifest.Object) error) error { return r.Each(f.Args, fn) })
	env.Warn(ws...)
	var strict *pipeline.StrictError
	if errors.As(err, &strict) {
		return strictError(flags, strict.Msg)
	}
	if err != nil {
		return err
	}
	if len(f.Refs) == 0 {
		env.Warn("no --operator selected; objects pass through unchanged")
	}
	return helmUnused(&f.Helm, *used)
}

// Explain reports, object by object, each field a fill sets and why.
type Explain struct {
	Operators
	Helm
	Args   []string
	Format string // text or json
}

func (x *Explain) Run(env *Env) error {
	if len(x.Refs) == 0 {
		return Usagef("explain needs at least one --operator NAME@VERSION")
	}
	e, res, err := env.Engine(x.Operators)
	if err != nil {
		return err
	}
	objs, err := env.readAll(&x.Helm, x.Args)
	if err != nil {
		return err
	}
	if err := env.unservedCheck(x.Strict)(res, objs); err != nil {
		return err
	}
	rep, err := explain.Run(e, res, objs)
	if err != nil {
		return err
	}
	if x.Format == "json" {
		return explain.WriteJSON(env.Out, rep)
	}
	explain.WriteText(env.Out, rep)
	return nil
}

// DiffReleases compares two releases of one operator: their profiles, or
// their fills of the inputs. It returns Found when something changes.
type DiffReleases struct {
	Operators // directories and strictness; the releases are A and B
	Helm
	A, B   string
	Inputs []string
	Format string // text or json
}

func (d *DiffReleases) Run(env *Env) error {
	if err := diff.SameOperator(d.A, d.B); err != nil {
		return UsageError{err}
	}
	ea, ra, err := env.load(env.selection(d.Operators, []string{d.A}))
	if err != nil {
		return err
	}
	eb, rb, err := env.load(env.selection(d.Operators, []string{d.B}))
	if err != nil {
		return err
	}
	var rep interface {
		Report
		Changed() bool
	}
	if len(d.Inputs) == 0 {
		if err := helmUnused(&d.Helm, false); err != nil {
			return err
		}
		rep = diff.Profiles(ra[0], rb[0])
	} else {
		// Directories are rendered (plain, Helm, Kustomize) as by fill.
		objs, err := env.readAll(&d.Helm, d.Inputs)
		if err != nil {
			return err
		}
		if rep, err = diff.Fill(ea, eb, ra[0], rb[0], objs); err != nil {
			return err
		}
	}
	if err := env.Print(d.Format, rep); err != nil {
		return err
	}
	if rep.Changed() {
		return Found{}
	}
	return nil
}
