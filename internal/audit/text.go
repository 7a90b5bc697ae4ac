package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

// WriteJSON writes the report as JSON.
func (rep *Report) WriteJSON(w io.Writer) error { return report.WriteJSON(w, rep) }

// maxLines bounds the fields listed per check in text output.
const maxLines = 10

var labels = map[Status]string{
	Redundant:       "REDUNDANT",
	PartlyRedundant: "PARTLY REDUNDANT",
	StillNeeded:     "STILL NEEDED",
	MatchesNothing:  "MATCHES NOTHING",
	Invalid:         "INVALID",
	OutOfScope:      "OUT OF SCOPE",
	NotAudited:      "NOT AUDITED",
}

var fieldNames = map[string]string{
	"jsonPointer":          "jsonPointers",
	"jqPathExpression":     "jqPathExpressions",
	"managedFieldsManager": "managedFieldsManagers",
}

// WriteText prints the report for a person.
func (rep *Report) WriteText(w io.Writer) error {
	var names []string
	for _, o := range rep.Operators {
		names = append(names, o.String())
	}
	ops := strings.Join(names, ", ")
	if ops == "" {
		ops = "no operator"
	}
	fmt.Fprintf(w, "Audit of %d ignoreDifferences rule(s) against %d object(s), filled with %s\n", rep.Summary.Rules, rep.Objects, ops)
	rep.writeSources(w)
	for _, rr := range rep.Rules {
		fmt.Fprintf(w, "\n%s\n", rr.Origin)
		switch n := len(rr.Matched); n {
		case 0:
			fmt.Fprintf(w, "  %s: matches no object\n", rr.rule.Target())
		default:
			fmt.Fprintf(w, "  %s: matches %d object(s)\n", rr.rule.Target(), n)
		}
		where := map[string]string{}
		for _, m := range rr.Matched {
			where[m.Object] = manifest.Location(m.Source, m.Document, m.Line)
		}
		if len(rr.Checks) == 0 {
			fmt.Fprintln(w, "  (no jsonPointers, jqPathExpressions or managedFieldsManagers: the rule does nothing)")
		}
		for _, c := range rr.Checks {
			fmt.Fprintf(w, "  %s: %s\n", fieldNames[c.Type], c.Expression)
			fmt.Fprintf(w, "    %s: %s\n", labels[c.Status], c.Reason)
			writeFields(w, c, where)
			if len(c.Keep) > 0 {
				fmt.Fprintf(w, "      keep only:\n        %s:\n", fieldNames[c.Type])
				for _, k := range c.Keep {
					fmt.Fprintf(w, "          - %s\n", yamlString(k))
				}
			}
			for i, e := range c.Errors {
				if i == maxLines {
					fmt.Fprintf(w, "      ... and %d more error(s)\n", len(c.Errors)-i)
					break
				}
				fmt.Fprintf(w, "      error: %s\n", e)
			}
		}
	}
	s := rep.Summary
	fmt.Fprintf(w, "\n%d rule(s), %d check(s): %d redundant, %d partly redundant, %d still needed, %d match nothing, %d invalid",
		s.Rules, s.Checks, s.Redundant, s.PartlyRedundant, s.StillNeeded, s.MatchesNothing, s.Invalid)
	if s.OutOfScope > 0 {
		fmt.Fprintf(w, ", %d out of scope", s.OutOfScope)
	}
	if s.NotAudited > 0 {
		fmt.Fprintf(w, ", %d not audited", s.NotAudited)
	}
	fmt.Fprintln(w)
	if s.Redundant > 0 {
		fmt.Fprintln(w, "Delete the redundant expressions once cmp-defaults renders the application (docs/migrating.md).")
	}
	return nil
}

// writeSources says which directory was rendered for which Application.
func (rep *Report) writeSources(w io.Writer) {
	if len(rep.Applications) == 0 {
		return
	}
	fmt.Fprintf(w, "Sources rendered from the repository root %s:\n", rep.RepoRoot)
	for _, a := range rep.Applications {
		name := a.Origin.Name
		if a.Origin.Namespace != "" {
			name = a.Origin.Namespace + "/" + name
		}
		ops := "no operator"
		if len(a.Operators) > 0 {
			ops = strings.Join(a.Operators, ", ")
		}
		fmt.Fprintf(w, "  %s %s (%s:%d), filled with %s\n", a.Origin.Kind, name, a.Origin.File, a.Origin.Line, ops)
		if len(a.Sources) == 0 {
			fmt.Fprintln(w, "    no source")
		}
		for _, s := range a.Sources {
			if s.Rendered {
				fmt.Fprintf(w, "    %s: %s/ (%d object(s))\n", s.Field, s.Dir, s.Objects)
			} else {
				fmt.Fprintf(w, "    %s: not rendered: %s\n", s.Field, s.Reason)
			}
		}
	}
}

func writeFields(w io.Writer, c *Check, where map[string]string) {
	type line struct{ obj, text string }
	var lines []line
	for _, f := range c.Filled {
		switch {
		case f.Absent && f.Path == f.Rule:
			lines = append(lines, line{f.Object, fmt.Sprintf("default  %s  (from %s: nothing to fill here)", f.Path, f.By)})
		case f.Absent:
			lines = append(lines, line{f.Object, fmt.Sprintf("default  %s  (parent absent: admission adds nothing either; rule %s from %s)", f.Path, f.Rule, f.By)})
		default:
			lines = append(lines, line{f.Object, fmt.Sprintf("filled   %s = %s  (%s %s from %s)", f.Path, js(f.Value), f.Type, f.Rule, f.By)})
		}
	}
	for _, f := range c.Remaining {
		switch {
		case f.Reason == InGit:
			lines = append(lines, line{f.Object, fmt.Sprintf("kept     %s = %s  (set in Git, not a default)", f.Path, js(f.Value))})
		case f.UnknownWebhook != "" && f.History != "":
			lines = append(lines, line{f.Object, fmt.Sprintf("kept     %s  (absent from Git; this release's webhook defaults are not known (%s), and it was a default in %s)", f.Path, f.UnknownWebhook, f.History)})
		case f.UnknownWebhook != "":
			lines = append(lines, line{f.Object, fmt.Sprintf("kept     %s  (absent from Git; this release's webhook defaults are not known (%s))", f.Path, f.UnknownWebhook)})
		case f.History != "":
			lines = append(lines, line{f.Object, fmt.Sprintf("kept     %s  (absent from Git; not a default of the selected release, but one in %s)", f.Path, f.History)})
		default:
			lines = append(lines, line{f.Object, fmt.Sprintf("kept     %s  (absent from Git, not a default: live only)", f.Path)})
		}
	}
	last := ""
	for i, l := range lines {
		if i == maxLines {
			fmt.Fprintf(w, "      ... and %d more field(s); -o json lists them all\n", len(lines)-i)
			break
		}
		if l.obj != last {
			fmt.Fprintf(w, "      %s  (%s)\n", l.obj, where[l.obj])
			last = l.obj
		}
		fmt.Fprintf(w, "        %s\n", l.text)
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// yamlString quotes an expression when YAML would not read it as written.
func yamlString(s string) string {
	if strings.ContainsAny(s, "[]{}:#,&*!|>'\"%@`") {
		return js(s)
	}
	return s
}
