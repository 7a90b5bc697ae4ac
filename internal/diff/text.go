package diff

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (r Release) long() string {
	return fmt.Sprintf("%s (profile %s)", r, r.Profile)
}

// WriteProfiles prints a profile difference for a person.
func WriteProfiles(w io.Writer, d *ProfileDiff) {
	fmt.Fprintf(w, "%s -> %s\n", d.From.long(), d.To.long())
	if d.From.Profile == d.To.Profile && d.From.File == d.To.File {
		fmt.Fprintf(w, "\nBoth releases use profile %s: admission adds the same fields.\n", d.From.Profile)
		return
	}
	for _, k := range d.Kinds {
		switch k.Change {
		case tree.Added:
			fmt.Fprintf(w, "\n%s %s  (no defaults in %s)\n", k.APIVersion, k.Kind, d.From)
		case tree.Removed:
			fmt.Fprintf(w, "\n%s %s  (no defaults left in %s)\n", k.APIVersion, k.Kind, d.To)
		default:
			fmt.Fprintf(w, "\n%s %s\n", k.APIVersion, k.Kind)
		}
		for _, r := range k.Rules {
			when := ""
			if r.When != "" {
				when = "  when " + r.When
			}
			switch r.Change {
			case tree.Added:
				fmt.Fprintf(w, "  + %-8s %s = %s%s\n", r.Type, r.Path, js(r.To), when)
			case tree.Removed:
				fmt.Fprintf(w, "  - %-8s %s = %s%s\n", r.Type, r.Path, js(r.From), when)
			default:
				det := ""
				if r.Detail != "" {
					det = "  (" + r.Detail + ")"
				}
				fmt.Fprintf(w, "  ~ %-8s %s: %s -> %s%s%s\n", r.Type, r.Path, js(r.From), js(r.To), when, det)
			}
		}
	}
	added, removed, changed := 0, 0, 0
	for _, k := range d.Kinds {
		for _, r := range k.Rules {
			switch r.Change {
			case tree.Added:
				added++
			case tree.Removed:
				removed++
			default:
				changed++
			}
		}
	}
	if d.Count() == 0 {
		fmt.Fprintf(w, "\nNo difference: admission adds the same fields.\n")
		return
	}
	fmt.Fprintf(w, "\n%d rule(s) in %d kind(s): %d added, %d removed, %d changed.\n", d.Count(), len(d.Kinds), added, removed, changed)
	fmt.Fprintf(w, "Removed defaults stay in objects the cluster stored before the upgrade but are missing from new ones; added defaults appear in every object on its next read or write.\n")
}

// ObjectsReport is the result of diff-releases with inputs.
type ObjectsReport struct {
	From    Release      `json:"from"`
	To      Release      `json:"to"`
	Total   int          `json:"total"`
	Objects []ObjectDiff `json:"objects"`
}

// WriteObjects prints per-object differences for a person.
func WriteObjects(w io.Writer, r *ObjectsReport) {
	fmt.Fprintf(w, "%s -> %s\n", r.From.long(), r.To.long())
	appear, disappear, change := 0, 0, 0
	for _, o := range r.Objects {
		fmt.Fprintf(w, "\n%s  (%s)\n", o.Object, manifest.Location(o.Source, o.Document, o.Line))
		for _, c := range o.Changes {
			switch c.Change {
			case Appears:
				appear++
				fmt.Fprintf(w, "  + %s = %s  (filled by %s, not by %s)\n", c.Path, js(c.To), r.To, r.From)
			case Disappears:
				disappear++
				fmt.Fprintf(w, "  - %s = %s  (filled by %s, not by %s)\n", c.Path, js(c.From), r.From, r.To)
			default:
				change++
				fmt.Fprintf(w, "  ~ %s: %s -> %s\n", c.Path, js(c.From), js(c.To))
			}
		}
	}
	if len(r.Objects) == 0 {
		fmt.Fprintf(w, "\nNo difference in %d object(s): both releases fill the same fields.\n", r.Total)
		return
	}
	fmt.Fprintf(w, "\n%d of %d object(s) change: %d field(s) appear, %d disappear, %d change value.\n", len(r.Objects), r.Total, appear, disappear, change)
	if disappear > 0 {
		fmt.Fprintf(w, "Fields that disappear stay stored in objects created under %s until a sync applies them without those fields: Argo CD, which applied them, then removes them (either sync strategy); objects created under %s lack them.\n", r.From, r.To)
	}
}
