package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

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

// unknownCounts is ", N <what> unknown in R" for each release R, or "".
func unknownCounts(unknown map[string]int, what string) string {
	out := ""
	for _, rel := range slices.Sorted(maps.Keys(unknown)) {
		out += fmt.Sprintf(", %d %s unknown in %s", unknown[rel], what, rel)
	}
	return out
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
			switch {
			case r.Unknown != "" && r.Change == tree.Added:
				fmt.Fprintf(w, "  ? %-8s %s = %s%s  (unknown in %s: its webhook defaults were not learned)\n", r.Type, r.Path, js(r.To), when, r.Unknown)
			case r.Unknown != "":
				fmt.Fprintf(w, "  ? %-8s %s = %s%s  (unknown in %s: its webhook defaults were not learned)\n", r.Type, r.Path, js(r.From), when, r.Unknown)
			case r.Change == tree.Added:
				fmt.Fprintf(w, "  + %-8s %s = %s%s\n", r.Type, r.Path, js(r.To), when)
			case r.Change == tree.Removed:
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
	added, removed, changed, unknown := 0, 0, 0, map[string]int{}
	for _, k := range d.Kinds {
		for _, r := range k.Rules {
			switch {
			case r.Unknown != "":
				unknown[r.Unknown]++
			case r.Change == tree.Added:
				added++
			case r.Change == tree.Removed:
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
	fmt.Fprintf(w, "\n%d rule(s) in %d kind(s): %d added, %d removed, %d changed%s.\n", d.Count(), len(d.Kinds), added, removed, changed, unknownCounts(unknown, "mutation(s)"))
	if len(unknown) > 0 {
		fmt.Fprintf(w, "Unknown: the webhook defaults of %s were not learned, so whether its webhook still writes those fields is not known; its profile fills none of them (docs/webhooks.md).\n", strings.Join(slices.Sorted(maps.Keys(unknown)), " and "))
	}
	if added+removed+changed > 0 {
		fmt.Fprintf(w, "Removed defaults stay in objects the cluster stored before the upgrade but are missing from new ones; added defaults appear in every object on its next read or write.\n")
	}
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
	appear, disappear, change, unknown := 0, 0, 0, map[string]int{}
	for _, o := range r.Objects {
		fmt.Fprintf(w, "\n%s  (%s)\n", o.Object, manifest.Location(o.Source, o.Document, o.Line))
		for _, c := range o.Changes {
			switch c.Change {
			case Unknown:
				unknown[c.Unknown]++
				filledBy, v := r.From, c.From
				if c.Unknown == r.From.String() {
					filledBy, v = r.To, c.To
				}
				fmt.Fprintf(w, "  ? %s = %s  (filled by %s's webhook; unknown in %s: its webhook defaults were not learned)\n", c.Path, js(v), filledBy, c.Unknown)
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
	fmt.Fprintf(w, "\n%d of %d object(s) change: %d field(s) appear, %d disappear, %d change value%s.\n", len(r.Objects), r.Total, appear, disappear, change, unknownCounts(unknown, "field(s)"))
	if len(unknown) > 0 {
		fmt.Fprintf(w, "Unknown fields are written by a webhook whose defaults were not learned for %s: it may well still write them, so they are not said to appear or disappear (docs/webhooks.md).\n", strings.Join(slices.Sorted(maps.Keys(unknown)), " and "))
	}
	if disappear > 0 {
		fmt.Fprintf(w, "Fields that disappear stay stored in objects created under %s until a sync applies them without those fields: Argo CD, which applied them, then removes them (either sync strategy); objects created under %s lack them.\n", r.From, r.To)
	}
}
