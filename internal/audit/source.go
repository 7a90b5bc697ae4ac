package audit

import (
	"maps"
	"slices"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Recorder collects the fields filled into each object, by index, as
// defaults.Engine and the pipeline report them.
type Recorder struct {
	filled [][]defaults.Filled
}

// Record is the callback of Engine.FillAll and pipeline.Options.Record.
func (r *Recorder) Record(i int, f defaults.Filled) {
	for len(r.filled) <= i {
		r.filled = append(r.filled, nil)
	}
	r.filled[i] = append(r.filled[i], f)
}

// Targets pairs objs with what was filled into each.
func (r *Recorder) Targets(objs []manifest.Object) []*Target {
	targets := make([]*Target, len(objs))
	for i := range objs {
		targets[i] = &Target{Object: objs[i]}
		if i < len(r.filled) {
			targets[i].Filled = r.filled[i]
		}
	}
	return targets
}

// FillTargets fills objs with e and returns them as audit targets.
func FillTargets(e *defaults.Engine, objs []manifest.Object) ([]*Target, error) {
	var r Recorder
	if err := e.FillAll(objs, r.Record); err != nil {
		return nil, err
	}
	return r.Targets(objs), nil
}

// leaves lists the paths of every leaf under p (p itself for a scalar,
// null, or an empty object or list), in key order.
func leaves(x any, p tree.Path, out *[]tree.Path) {
	switch v := x.(type) {
	case map[string]any:
		if len(v) == 0 {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			leaves(v[k], p.Child(k), out)
		}
		return
	case []any:
		if len(v) == 0 {
			break
		}
		for i, e := range v {
			leaves(e, p.Child(i), out)
		}
		return
	}
	*out = append(*out, p)
}
