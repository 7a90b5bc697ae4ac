// Package report holds what the reports of explain and check share: the
// operator releases in force, an object's heading, and the JSON form.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Selection is one operator release in force and the profile serving it.
type Selection struct {
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

// Selections lists the resolved releases, never nil.
func Selections(res []*operators.Resolution) []Selection {
	out := []Selection{}
	for _, r := range res {
		out = append(out, Selection{Operator: r.Operator, Release: r.Requested, Profile: r.Profile.Version, Channel: r.Profile.Channel, File: r.Profile.File, Source: r.Profile.Source, Warning: r.Warning, Learned: r.Profile.Learned})
	}
	return out
}

// Object names one object of the input and where it was read.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Source     string `json:"source"`
	Document   int    `json:"document"`
	Line       int    `json:"line"`
	Origin     string `json:"origin,omitempty"` // kustomize: the file it came from, what changed it
}

// ObjectOf names ob.
func ObjectOf(ob manifest.Object) Object {
	o := Object{Source: ob.Source, Document: ob.Doc, Line: ob.Line, Origin: ob.Origin}
	o.APIVersion, _ = ob.Data["apiVersion"].(string)
	o.Kind, _ = ob.Data["kind"].(string)
	md, _ := ob.Data["metadata"].(map[string]any)
	o.Name, _ = md["name"].(string)
	o.Namespace, _ = md["namespace"].(string)
	return o
}

// WriteSelections prints the operator releases in force, one comment line each.
func WriteSelections(w io.Writer, sels []Selection) {
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

// WriteHeading starts an object's block in a text report.
func WriteHeading(w io.Writer, o Object) {
	name := o.Name
	if o.Namespace != "" {
		name = o.Namespace + "/" + name
	}
	where := manifest.Location(o.Source, o.Document, o.Line)
	if o.Origin != "" {
		where += "; " + o.Origin
	}
	fmt.Fprintf(w, "\n%s %s %s  (%s)\n", o.APIVersion, o.Kind, name, where)
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
