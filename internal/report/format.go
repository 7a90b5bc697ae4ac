package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The -o values, as kubectl spells them: a report is text by default and
// also JSON or YAML (the same data as the JSON); a manifest stream or a
// profile is YAML by default, or JSON.
var (
	ReportFormats   = []string{"text", "json", "yaml"}
	ManifestFormats = []string{"yaml", "json"}
)

// Writer is a typed report that writes itself as text and as JSON.
type Writer interface {
	WriteText(w io.Writer) error
	WriteJSON(w io.Writer) error
}

// CheckFormat refuses a format that is not one of allowed, naming them.
func CheckFormat(format string, allowed []string) error {
	if slices.Contains(allowed, format) {
		return nil
	}
	return &FormatError{fmt.Sprintf("--output %q: use %s", format, OneOf(allowed))}
}

// FormatError is a -o value the command does not write: a usage mistake.
type FormatError struct{ msg string }

func (e *FormatError) Error() string { return e.msg }

// Format is the value of -o/--output (a pflag.Value), checked when it is
// set against the formats its command writes.
type Format struct {
	Dst     *string
	Allowed []string
}

func (f *Format) String() string { return *f.Dst }
func (f *Format) Type() string   { return "string" }

func (f *Format) Set(s string) error {
	if err := CheckFormat(s, f.Allowed); err != nil {
		return err
	}
	*f.Dst = s
	return nil
}

// OneOf lists choices as a sentence does: "a, b or c".
func OneOf(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// MarkdownWriter is a report that also writes itself as Markdown.
type MarkdownWriter interface {
	WriteMarkdown(w io.Writer) error
}

// Write writes r in format: text (also the default), json, yaml, or
// markdown for a MarkdownWriter.
func Write(w io.Writer, r Writer, format string) error {
	switch format {
	case "json":
		return r.WriteJSON(w)
	case "markdown":
		if m, ok := r.(MarkdownWriter); ok {
			return m.WriteMarkdown(w)
		}
	case "yaml":
		var buf bytes.Buffer
		if err := r.WriteJSON(&buf); err != nil {
			return err
		}
		b, err := JSONToYAML(buf.Bytes())
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return r.WriteText(w)
}

// JSONToYAML re-encodes a JSON document as block-style YAML, keeping the
// order of its keys (the JSON's field order, which is the report's).
func JSONToYAML(j []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(j, &doc); err != nil {
		return nil, err
	}
	block(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// block drops the JSON's flow and quoting styles; the encoder still quotes
// a string that would otherwise read as another type.
func block(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		block(c)
	}
}
