package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

type explainObject struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Namespace  string            `json:"namespace,omitempty"`
	Name       string            `json:"name"`
	Source     string            `json:"source"`
	Document   int               `json:"document"`
	Line       int               `json:"line"`
	Covered    bool              `json:"covered"`
	Filled     []defaults.Filled `json:"filled"`
	// Why nothing was filled in a covered object: "complete" (every
	// defaulted field is set), "no-parents" (every one sits under a parent
	// the object does not have) or "set-or-no-parents" (some of each).
	Unfilled string `json:"unfilled,omitempty"`
}

type explainSelection struct {
	Operator string `json:"operator"`
	Release  string `json:"release"`
	Profile  string `json:"profile"`
	Channel  string `json:"channel,omitempty"`
	File     string `json:"file"`
	Source   string `json:"source"`
	Warning  string `json:"warning,omitempty"`
	// Learned is the provenance of a profile learned from a cluster.
	Learned *operators.Learned `json:"learned,omitempty"`
}

func newSelection(r *operators.Resolution) explainSelection {
	return explainSelection{Operator: r.Operator, Release: r.Requested, Profile: r.Profile.Version, Channel: r.Profile.Channel, File: r.Profile.File, Source: r.Profile.Source, Warning: r.Warning, Learned: r.Profile.Learned}
}

type explainReport struct {
	Operators []explainSelection `json:"operators"`
	Objects   []explainObject    `json:"objects"`
}

func (c *cli) explainCmd() *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "explain [DIR|FILE...|-]",
		Short: "Show, object by object, which fields would be filled and why",
		Long: `Explain fills like 'fill' but prints, for every object, each field that would be set,
its value, the rule (a jq path), and the operator release and profile file it comes from.
A directory argument is rendered first (Helm, Kustomize or plain manifests, default settings).`,
		Example: `  cmp-defaults explain --operator external-secrets@2.5.0 examples/plain/externalsecret.yaml
  cmp-defaults explain --operator cert-manager@1.19.0 -o json certificate.yaml
  cmp-defaults explain --operator external-secrets@2.5.0 examples/helm`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.output != "text" && o.output != "json" {
				return usagef("--output %q: use text or json", o.output)
			}
			if len(o.operators) == 0 {
				return usagef("explain needs at least one --operator NAME@VERSION")
			}
			if err := c.needInput(cmd, args); err != nil {
				return err
			}
			e, res, err := c.engine(&o)
			if err != nil {
				return err
			}
			objs, err := c.readInputs(args)
			if err != nil {
				return err
			}
			rep := buildReport(e, res, objs)
			if err := fillAll(e, objs, func(i int, f defaults.Filled) {
				rep.Objects[i].Filled = append(rep.Objects[i].Filled, f)
			}); err != nil {
				return err
			}
			for i := range rep.Objects {
				if ob := &rep.Objects[i]; ob.Covered && len(ob.Filled) == 0 {
					ob.Unfilled = whyUnfilled(res, objs[i].Data)
				}
			}
			if o.output == "json" {
				enc := json.NewEncoder(c.out)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			writeExplain(c.out, rep)
			return nil
		},
	}
	addCommon(cmd, &o)
	c.addSourceFlags(cmd)
	o.output = "text"
	cmd.Flags().Lookup("output").Usage = "output format: text or json"
	cmd.Flags().Lookup("output").DefValue = "text"
	return cmd
}

func buildReport(e *defaults.Engine, res []*operators.Resolution, objs []manifest.Object) *explainReport {
	rep := &explainReport{Operators: []explainSelection{}, Objects: make([]explainObject, len(objs))}
	for _, r := range res {
		rep.Operators = append(rep.Operators, newSelection(r))
	}
	for i, ob := range objs {
		av, _ := ob.Data["apiVersion"].(string)
		k, _ := ob.Data["kind"].(string)
		md, _ := ob.Data["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		ns, _ := md["namespace"].(string)
		rep.Objects[i] = explainObject{APIVersion: av, Kind: k, Name: name, Namespace: ns, Source: ob.Source, Document: ob.Doc, Line: ob.Line, Covered: e.Covers(av, k), Filled: []defaults.Filled{}}
	}
	return rep
}

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
			for _, d := range rs.Defaults {
				segs, err := operators.ParsePath(d.Path)
				if err != nil {
					continue
				}
				if parents, _ := operators.Reach(obj, segs); parents == 0 {
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

// writeSelections prints the operator releases in force, one comment line each.
func writeSelections(w io.Writer, sels []explainSelection) {
	for _, s := range sels {
		// A channel is named because the wrong one fills the wrong fields:
		// Gateway API's standard and experimental CRDs differ.
		ch := ""
		if s.Channel != "" {
			ch = ", " + s.Channel + " channel"
		}
		fmt.Fprintf(w, "# %s@%s: profile %s%s (%s, %s)\n", s.Operator, strings.TrimPrefix(s.Release, "v"), s.Profile, ch, s.File, s.Source)
		if s.Learned != nil {
			fmt.Fprintf(w, "#   %s\n", s.Learned)
		}
	}
}

// writeHeading starts an object's block in a report.
func writeHeading(w io.Writer, apiVersion, kind, namespace, name, source string, doc, line int) {
	if namespace != "" {
		name = namespace + "/" + name
	}
	fmt.Fprintf(w, "\n%s %s %s  (%s)\n", apiVersion, kind, name, manifest.Location(source, doc, line))
}

func writeExplain(w io.Writer, rep *explainReport) {
	writeSelections(w, rep.Operators)
	filled, fields, complete, other := 0, 0, 0, 0
	for _, ob := range rep.Objects {
		writeHeading(w, ob.APIVersion, ob.Kind, ob.Namespace, ob.Name, ob.Source, ob.Document, ob.Line)
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
				fmt.Fprintf(w, "  %s = %s\n", f.Path, v)
				fmt.Fprintf(w, "      %s %s  from %s@%s, profile %s (%s:%d)\n", f.Type, f.Rule, f.Origin.Operator, strings.TrimPrefix(f.Origin.Release, "v"), f.Origin.Profile, f.Origin.File, f.Line)
			}
		}
	}
	fmt.Fprintf(w, "\n%d object(s): %d filled (%d field(s)), %d with nothing to fill, %d not covered by the selected profiles\n", len(rep.Objects), filled, fields, complete, other)
}
