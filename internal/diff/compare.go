package diff

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

// SameOperator checks that refs a and b (NAME@VERSION) name two releases
// of one operator.
func SameOperator(a, b string) error {
	na, _, err := operators.ParseRef(a)
	if err != nil {
		return err
	}
	nb, _, err := operators.ParseRef(b)
	if err != nil {
		return err
	}
	if na != nb {
		return fmt.Errorf("compare two releases of one operator, e.g. %s@A %s@B; got %s and %s", na, na, na, nb)
	}
	return nil
}

// Fill is diff-releases with inputs: it fills objs (in place) with ea,
// compiled from release a, and a copy of them with eb, from release b,
// and reports the fields that differ, object by object. A field one
// release's webhook fills where the other's webhook defaults for the kind
// were not learned is unknown, not a field that appears or disappears.
func Fill(ea, eb *defaults.Engine, a, b *operators.Resolution, objs []manifest.Object) (*ObjectsReport, error) {
	other := make([]manifest.Object, len(objs))
	for i, ob := range objs {
		other[i] = ob
		other[i].Data = runtime.DeepCopyJSON(ob.Data)
	}
	byA, byB := make([][]string, len(objs)), make([][]string, len(objs))
	mutated := func(to [][]string) func(int, defaults.Filled) {
		return func(i int, f defaults.Filled) {
			if f.Type == "mutation" {
				to[i] = append(to[i], f.Path)
			}
		}
	}
	if err := ea.FillAll(objs, mutated(byA)); err != nil {
		return nil, err
	}
	if err := eb.FillAll(other, mutated(byB)); err != nil {
		return nil, err
	}
	ra, rb := NewRelease(a), NewRelease(b)
	diffs := Objects(objs, other)
	for i := range diffs {
		d := &diffs[i]
		av, _ := objs[d.index].Data["apiVersion"].(string)
		k, _ := objs[d.index].Data["kind"].(string)
		ua, ub := a.UnknownWebhook(av, k) != "", b.UnknownWebhook(av, k) != ""
		for j := range d.Changes {
			c := &d.Changes[j]
			switch {
			case c.Change == Disappears && ub && under(c.Path, byA[d.index]):
				c.Change, c.Unknown = Unknown, rb.String()
			case c.Change == Appears && ua && under(c.Path, byB[d.index]):
				c.Change, c.Unknown = Unknown, ra.String()
			}
		}
	}
	return &ObjectsReport{From: ra, To: rb, Total: len(objs), Objects: diffs}, nil
}

// under says whether path is one of paths, or lies below or above one.
func under(path string, paths []string) bool {
	for _, p := range paths {
		if p == path || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") ||
			strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			return true
		}
	}
	return false
}

// Changed says whether any object differs.
func (r *ObjectsReport) Changed() bool { return len(r.Objects) > 0 }

// WriteText prints r for a person.
func (r *ObjectsReport) WriteText(w io.Writer) error { WriteObjects(w, r); return nil }

// WriteJSON prints r as JSON.
func (r *ObjectsReport) WriteJSON(w io.Writer) error { return report.WriteJSON(w, r) }

// Changed says whether any rule differs.
func (d *ProfileDiff) Changed() bool { return d.Count() > 0 }

// WriteText prints d for a person.
func (d *ProfileDiff) WriteText(w io.Writer) error { WriteProfiles(w, d); return nil }

// WriteJSON prints d as JSON.
func (d *ProfileDiff) WriteJSON(w io.Writer) error { return report.WriteJSON(w, d) }
