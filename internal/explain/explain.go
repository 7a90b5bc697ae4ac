// Package explain is the use case of 'cmp-defaults explain': fill objects
// and report, object by object, each field set, its value, the rule and
// the operator release and profile it comes from.
package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Object is one object's explanation.
type Object struct {
	report.Object
	Covered bool              `json:"covered"`
	Filled  []defaults.Filled `json:"filled"`
	// Rewrites are values written that admission stores as others:
	// never changed, told.
	Rewrites []defaults.Rewrite `json:"rewrites,omitempty"`
	// Why nothing was filled in a covered object: "complete" (every
	// defaulted field is set), "no-parents" (every one sits under a parent
	// the object does not have) or "set-or-no-parents" (some of each).
	Unfilled string `json:"unfilled,omitempty"`
}

// Report is the explanation of a run.
type Report struct {
	Operators []report.Selection `json:"operators"`
	Objects   []Object           `json:"objects"`
}

// Fields fills objs (in place) with e, the engine compiled from res, and
// explains every field it set.
func Fields(e *defaults.Engine, res []*operators.Resolution, objs []manifest.Object) (*Report, error) {
	rep := &Report{Operators: report.Selections(res), Objects: make([]Object, len(objs))}
	for i, ob := range objs {
		o := Object{Object: report.ObjectOf(ob), Filled: []defaults.Filled{}}
		o.Covered = e.Covers(o.APIVersion, o.Kind)
		// Rewrites first: their conditions are on the object as written.
		rw, err := e.Rewrites(ob.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", ob.Where(), ob.ID(), err)
		}
		o.Rewrites = rw
		if err := e.FillObject(ob, func(f defaults.Filled) { o.Filled = append(o.Filled, f) }); err != nil {
			return nil, err
		}
		if o.Covered && len(o.Filled) == 0 {
			o.Unfilled = whyUnfilled(res, ob.Data)
		}
		rep.Objects[i] = o
	}
	return rep, nil
}

// WriteJSON writes the report as JSON.
func (rep *Report) WriteJSON(w io.Writer) error { return report.WriteJSON(w, rep) }

// whyUnfilled tells why a covered object got nothing: its defaulted fields
// are all set, or some sit under parents it does not have.
func whyUnfilled(res []*operators.Resolution, obj map[string]any) string {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	reached, missed := 0, 0
	for _, r := range res {
		for _, rs := range r.Profile.Resources {
			if rs.Kind != k || rs.APIVersion() != av {
				continue
			}
			for _, d := range rs.FilledDefaults() {
				segs, err := tree.ParsePath(d.Path)
				if err != nil {
					continue
				}
				if parents, _ := tree.Reach(obj, segs); parents == 0 {
					missed++
				} else {
					reached++
				}
			}
		}
	}
	switch {
	case missed > 0 && reached == 0:
		return "no-parents"
	case missed > 0:
		return "set-or-no-parents"
	}
	return "complete"
}

// WriteText writes the report for a person.
func (rep *Report) WriteText(w io.Writer) error {
	report.WriteSelections(w, rep.Operators)
	filled, fields, complete, other := 0, 0, 0, 0
	for _, ob := range rep.Objects {
		report.WriteHeading(w, ob.Object)
		switch {
		case !ob.Covered:
			other++
			fmt.Fprintln(w, "  no selected profile has rules for this kind: passed through")
		case len(ob.Filled) == 0 && ob.Unfilled == "no-parents":
			complete++
			fmt.Fprintln(w, "  nothing to fill: every defaulted field sits under a field this object does not have (admission adds nothing there either)")
		case len(ob.Filled) == 0 && ob.Unfilled == "set-or-no-parents":
			complete++
			fmt.Fprintln(w, "  nothing to fill: the defaulted fields are either set already or under fields this object does not have (admission adds nothing there either)")
		case len(ob.Filled) == 0:
			complete++
			fmt.Fprintln(w, "  nothing to fill: every defaulted field is already set")
		default:
			filled++
			fields += len(ob.Filled)
			for _, f := range ob.Filled {
				v, _ := json.Marshal(f.Value)
				if f.Type == "drop" {
					fmt.Fprintf(w, "  %s: %s removed (admission drops it; absent reads the same)\n", f.Path, v)
				} else {
					fmt.Fprintf(w, "  %s = %s\n", f.Path, v)
				}
				typ := f.Type
				if f.Origin.Storage != "" {
					typ = "default on read from " + f.Origin.Storage + ","
				}
				fmt.Fprintf(w, "      %s %s  from %s@%s, profile %s (%s:%d)\n", typ, f.Rule, f.Origin.Operator, strings.TrimPrefix(f.Origin.Release, "v"), f.Origin.Profile, f.Origin.File, f.Line)
			}
		}
		for _, r := range ob.Rewrites {
			from, _ := json.Marshal(r.From)
			to, _ := json.Marshal(r.To)
			fmt.Fprintf(w, "  %s = %s  stored as %s: not changed (you wrote it); write %s in Git\n", r.Path, from, to, to)
			fmt.Fprintf(w, "      rewrite %s  from %s@%s, profile %s (%s)\n", r.Rule, r.Origin.Operator, strings.TrimPrefix(r.Origin.Release, "v"), r.Origin.Profile, r.Reason)
		}
	}
	fmt.Fprintf(w, "\n%d object(s): %d filled (%d field(s)), %d with nothing to fill, %d not covered by the selected profiles\n", len(rep.Objects), filled, fields, complete, other)
	return nil
}
