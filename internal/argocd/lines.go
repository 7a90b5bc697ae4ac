package argocd

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SetLines points each rule's Origin.Line at the rule itself rather than at
// the start of its object. read returns a file's bytes; files it cannot
// read (stdin) keep the object's line.
func (f *Found) SetLines(read func(file string) ([]byte, error)) {
	docs := map[string][]*yaml.Node{}
	for _, r := range f.Rules {
		file := r.Origin.File
		nodes, ok := docs[file]
		if !ok {
			if data, err := read(file); err == nil {
				nodes = yamlDocs(data)
			}
			docs[file] = nodes
		}
		if line := ruleLine(nodes, r.Origin); line > 0 {
			r.Origin.Line = line
		}
	}
}

// yamlDocs parses every document of a YAML (or JSON) stream; it stops at
// the first one that does not parse.
func yamlDocs(data []byte) []*yaml.Node {
	var out []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) || err != nil {
			return out
		}
		if len(n.Content) > 0 {
			out = append(out, n.Content[0])
		}
	}
}

// ruleLine finds the line of the field o.Field in the document that starts
// at or after o.Line (the first such document).
func ruleLine(docs []*yaml.Node, o Origin) int {
	var doc *yaml.Node
	for _, d := range docs {
		if d.Line >= o.Line && (doc == nil || d.Line < doc.Line) {
			doc = d
		}
	}
	if doc == nil {
		return 0
	}
	// A field inside a text value (argocd-cm's resource.customizations)
	// is located at the deepest node found.
	n, line := doc, 0
	for _, step := range fieldSteps(o.Field) {
		if n = child(n, step); n == nil {
			break
		}
		line = n.Line
	}
	return line
}

// fieldSteps splits "spec.template.spec.ignoreDifferences[0]" or
// `data["resource.customizations"]["apps/Deployment"].ignoreDifferences`
// into keys and indexes.
func fieldSteps(field string) []string {
	var out []string
	for field != "" {
		switch {
		case field[0] == '.':
			field = field[1:]
		case strings.HasPrefix(field, `["`):
			s, err := strconv.QuotedPrefix(field[1:])
			if err != nil {
				return out
			}
			k, _ := strconv.Unquote(s)
			out = append(out, k)
			field = strings.TrimPrefix(field[1+len(s):], "]")
		case field[0] == '[':
			end := strings.IndexByte(field, ']')
			if end < 0 {
				return out
			}
			out = append(out, "#"+field[1:end])
			field = field[end+1:]
		default:
			end := strings.IndexAny(field, ".[")
			if end < 0 {
				end = len(field)
			}
			out = append(out, field[:end])
			field = field[end:]
		}
	}
	return out
}

func child(n *yaml.Node, step string) *yaml.Node {
	if i, ok := strings.CutPrefix(step, "#"); ok && n.Kind == yaml.SequenceNode {
		k, err := strconv.Atoi(i)
		if err != nil || k < 0 || k >= len(n.Content) {
			return nil
		}
		return n.Content[k]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == step {
			if n.Content[i+1].Kind == yaml.ScalarNode {
				return n.Content[i] // a key whose value is text: point at the key
			}
			return n.Content[i+1]
		}
	}
	return nil
}
