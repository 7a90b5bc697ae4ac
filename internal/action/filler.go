package action

import (
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// filler fills objects with a compiled selection of releases: the one fill
// step of the commands that print filled objects (render, generate, fill,
// audit of a plugin Application).
type filler struct {
	e        *defaults.Engine
	store    *operators.Store
	releases []*operators.Resolution
	strict   bool
	kinds    kindCheck
	warnings *warn.List
}

// fill fills the absent fields of ob (rec, when set, hears of each) and
// warns of the values it found written that admission rewrites. Rewrites
// are read first: their conditions are on the object as written, as the
// webhook receives it.
func (f *filler) fill(ob manifest.Object, rec func(defaults.Filled)) error {
	ws, err := f.e.RewriteWarnings(ob)
	if err != nil {
		return err
	}
	if err := f.e.FillObject(ob, rec); err != nil {
		return err
	}
	f.warnings.Add(warn.Rewrites, ws...)
	return nil
}

// check warns of objs of kinds the selected releases do not serve, or
// fails on the first in strict mode.
func (f *filler) check(objs []manifest.Object) error {
	return f.kinds.check(f.store, f.releases, objs, f.strict, f.warnings)
}
