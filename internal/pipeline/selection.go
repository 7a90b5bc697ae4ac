package pipeline

import (
	"context"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// Loaded is a selection of operator releases made ready to fill.
type Loaded struct {
	Store    *operators.Store
	Releases []*operators.Resolution
	Engine   *defaults.Engine // stops when ctx of LoadSelection ends
	Warnings []string         // the releases', in order; kept on error too
}

// LoadStore reads the shipped profiles and those of dirs.
func LoadStore(dirs []string) (*operators.Store, error) {
	return operators.Load(operators.LoadOptions{Embedded: profiles.FS, Dirs: dirs})
}

// LoadSelection resolves the selected releases in st (LoadStore of
// sel.Dirs, loaded once by the caller for the whole run) and compiles their
// rules. The releases' warnings are returned on error too, so that they can
// precede it; the store's own warnings are the caller's to print.
func LoadSelection(ctx context.Context, st *operators.Store, sel operators.Selection) (*Loaded, error) {
	l := &Loaded{Store: st}
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
	// jq rules stop when the run ends (its memory budget); the pipeline
	// narrows this to its deadline.
	l.Releases, l.Engine = res, e.WithContext(ctx)
	return l, nil
}
