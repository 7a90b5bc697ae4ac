package diff

import (
	"fmt"
	"io"

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
// and reports the fields that differ, object by object.
func Fill(ea, eb *defaults.Engine, a, b *operators.Resolution, objs []manifest.Object) (*ObjectsReport, error) {
	other := make([]manifest.Object, len(objs))
	for i, ob := range objs {
		other[i] = ob
		other[i].Data = runtime.DeepCopyJSON(ob.Data)
	}
	if err := ea.FillAll(objs, nil); err != nil {
		return nil, err
	}
	if err := eb.FillAll(other, nil); err != nil {
		return nil, err
	}
	return &ObjectsReport{From: NewRelease(a), To: NewRelease(b), Total: len(objs), Objects: Objects(objs, other)}, nil
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
