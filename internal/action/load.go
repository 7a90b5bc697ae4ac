package action

import (
	"context"
	"slices"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// loaded is a selection of operator releases made ready to fill.
type loaded struct {
	Store    *operators.Store
	Releases []*operators.Resolution
	Engine   *defaults.Engine // stops when ctx of loadSelection ends
	Warnings []string         // the releases', in order; kept on error too
}

// loadStore reads the shipped profiles and those of dirs.
func loadStore(dirs []string) (*operators.Store, error) {
	return operators.Load(operators.LoadOptions{Embedded: profiles.FS, Dirs: dirs})
}

// loadSelection resolves the selected releases in st and compiles their
// rules. The releases' warnings are returned on error too, so that they
// can precede it; the store's own warnings are the caller's to print.
func loadSelection(ctx context.Context, st *operators.Store, sel operators.Selection) (*loaded, error) {
	l := &loaded{Store: st}
	res, err := sel.Resolve(st)
	if err != nil {
		return l, err
	}
	for _, r := range res {
		if r.Warning != "" {
			l.Warnings = append(l.Warnings, r.Warning)
		}
	}
	e, err := defaults.Compile(res, st.ProfileFile)
	if err != nil {
		return l, err
	}
	// jq rules stop when the run ends (its memory budget, its deadline).
	l.Releases, l.Engine = res, e.WithContext(ctx)
	return l, nil
}

// storeOf loads the profiles of dirs once per run (diff-releases selects
// twice, audit selects and then reads the history); fresh says whether
// this call read them.
func (env *Env) storeOf(dirs []string) (st *operators.Store, fresh bool, err error) {
	if env.store != nil && slices.Equal(env.storeDirs, dirs) {
		return env.store, false, nil
	}
	if st, err = loadStore(dirs); err != nil {
		return nil, false, err
	}
	env.store, env.storeDirs = st, dirs
	return st, true, nil
}

// Store is the shipped profiles and those of o's directories; the caller
// reports their warnings.
func (env *Env) Store(o Operators) (*operators.Store, error) {
	st, _, err := env.storeOf(env.selection(o, nil).Dirs)
	return st, err
}

// Engine resolves o's releases and compiles their rules.
func (env *Env) Engine(ctx context.Context, o Operators) (*defaults.Engine, []*operators.Resolution, error) {
	return env.load(ctx, env.selection(o, o.refs()), settings.CLI)
}

// load is the one way a run resolves the operator releases it selects:
// the store read once per run, the releases' warnings given once, errors
// naming the setting to change as names spell it.
func (env *Env) load(ctx context.Context, sel operators.Selection, names settings.Names) (*defaults.Engine, []*operators.Resolution, error) {
	st, fresh, err := env.storeOf(sel.Dirs)
	if err != nil {
		return nil, nil, err
	}
	if fresh {
		env.Warn(st.Warnings...)
	}
	l, err := loadSelection(ctx, st, sel)
	env.Warn(l.Warnings...)
	if err != nil {
		return nil, nil, selectionError(names, err)
	}
	return l.Engine, l.Releases, nil
}

// selection is the releases refs name, with o's profile directories,
// else dirs (the sidecar's), and strictness.
func selection(o Operators, refs []string, dirs []string) operators.Selection {
	if len(o.ProfileDirs) > 0 {
		dirs = o.ProfileDirs
	}
	return operators.Selection{Refs: refs, Dirs: dirs, Strict: o.Strict}
}

// refs are the releases --operator names, its comma lists split: the one
// split of the command line's list (generate's is split by cmpenv).
func (o Operators) refs() []string { return settings.SplitList(o.Refs...) }

// selection is the releases refs name, with o's directories and strictness.
func (env *Env) selection(o Operators, refs []string) operators.Selection {
	return selection(o, refs, env.Sidecar.ProfileDirs)
}
