package defaults

import (
	"fmt"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// FillObject fills one decoded object; the error names the object and
// where it was read.
func (e *Engine) FillObject(o manifest.Object, record func(Filled)) error {
	if err := e.Fill(o.Data, record); err != nil {
		return fmt.Errorf("%s: %s: %v", o.Where(), o.ID(), err)
	}
	return nil
}

// FillAll fills every object, stopping at the first error; record, when
// set, sees each filled field with the index of its object.
func (e *Engine) FillAll(objs []manifest.Object, record func(i int, f Filled)) error {
	for i := range objs {
		var rec func(Filled)
		if record != nil {
			rec = func(f Filled) { record(i, f) }
		}
		if err := e.FillObject(objs[i], rec); err != nil {
			return err
		}
	}
	return nil
}
