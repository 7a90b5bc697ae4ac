package operators

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// LintError is a problem in a profile file, with its location.
type LintError struct {
	File string
	Line int
	Rule string
	Msg  string
}

func (e *LintError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Rule != "" {
		fmt.Fprintf(&b, ": rule %s", e.Rule)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// header is the part of a file that says what it is.
type header struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Operator   string `yaml:"operator"`
	Version    string `yaml:"version"`
}

func readHeader(file string, data []byte) (header, error) {
	var h header
	if err := yaml.Unmarshal(data, &h); err != nil {
		return h, &LintError{File: file, Msg: "not valid YAML: " + err.Error()}
	}
	if h.APIVersion != APIVersion || (h.Kind != KindProfile && h.Kind != KindIndex) {
		return h, &LintError{File: file, Line: 1, Msg: fmt.Sprintf("not a cmp-defaults file: want apiVersion %s and kind %s or %s, got %q/%q", APIVersion, KindProfile, KindIndex, h.APIVersion, h.Kind)}
	}
	if h.Operator == "" {
		return h, &LintError{File: file, Line: 1, Msg: "operator is empty"}
	}
	return h, nil
}

// document is the YAML document of a profile or index file.
func document(file string, data []byte) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &LintError{File: file, Msg: "not valid YAML: " + err.Error()}
	}
	if len(root.Content) == 0 {
		return nil, &LintError{File: file, Msg: "empty file"}
	}
	return root.Content[0], nil
}

// ParseProfile reads and validates a profile file.
func ParseProfile(file string, data []byte) (*Profile, error) {
	doc, err := document(file, data)
	if err != nil {
		return nil, err
	}
	if err := checkKeys(file, doc, "apiVersion", "kind", "operator", "version", "channel", "description", "provenance", "learned", "resources"); err != nil {
		return nil, err
	}
	if ln := valueOf(doc, "learned"); ln != nil {
		if err := checkKeys(file, ln, "cluster", "context", "secondContext", "serverVersion", "time", "objects", "varied", "operators", "module", "configuration", "overrides"); err != nil {
			return nil, err
		}
	}
	p := &Profile{File: file}
	if err := doc.Decode(p); err != nil {
		return nil, &LintError{File: file, Msg: err.Error()}
	}
	if p.APIVersion != APIVersion || p.Kind != KindProfile {
		return nil, &LintError{File: file, Line: doc.Line, Msg: fmt.Sprintf("want apiVersion %s and kind %s, got %q/%q", APIVersion, KindProfile, p.APIVersion, p.Kind)}
	}
	if err := CheckName(p.Operator); err != nil {
		return nil, &LintError{File: file, Line: doc.Line, Msg: err.Error()}
	}
	if _, err := CanonicalVersion(p.Version); err != nil {
		return nil, &LintError{File: file, Line: doc.Line, Msg: err.Error()}
	}
	p.Version, _ = CanonicalVersion(p.Version)
	if l := p.Learned; l != nil {
		line := valueOf(doc, "learned").Line
		switch {
		case l.Cluster == "" || l.ServerVersion == "":
			return nil, &LintError{File: file, Line: line, Msg: "learned: cluster and serverVersion are required"}
		case l.Objects <= 0:
			return nil, &LintError{File: file, Line: line, Msg: "learned: objects must be a positive count"}
		case l.Time != "" && !validTime(l.Time):
			return nil, &LintError{File: file, Line: line, Msg: fmt.Sprintf("learned: time %q is not RFC 3339 (2026-12-01T09:00:00Z)", l.Time)}
		}
	}
	res := valueOf(doc, "resources")
	if res == nil || res.Kind != yaml.SequenceNode {
		return nil, &LintError{File: file, Line: doc.Line, Msg: "resources must be a list"}
	}
	for _, rn := range res.Content {
		if rn.Kind != yaml.MappingNode {
			return nil, &LintError{File: file, Line: rn.Line, Msg: "each resource must be a mapping with group, version, kind"}
		}
	}
	if len(p.Resources) != len(res.Content) {
		return nil, &LintError{File: file, Line: res.Line, Msg: "resources could not be read as a list of mappings"}
	}
	// Every resource is checked, so that one run reports every problem.
	seen := map[string]int{}
	var errs []error
	for i, rn := range res.Content {
		r := &p.Resources[i]
		r.Line = rn.Line
		if err := checkKeys(file, rn, "group", "version", "kind", "storage", "maps", "defaults", "mutations", "rewrites", "webhook", "webhookUnknown", "storageVersion", "conversion", "readDefaults"); err != nil {
			errs = append(errs, err)
			continue
		}
		if r.Version == "" || r.Kind == "" {
			errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: "resource needs version and kind"})
			continue
		}
		key := r.APIVersion() + " " + r.Kind
		if prev, dup := seen[key]; dup {
			errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: fmt.Sprintf("%s is listed twice (first at line %d)", key, prev)})
			continue
		}
		seen[key] = rn.Line
		errs = append(errs, validateResource(file, rn, r)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

func validTime(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

func valueOf(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func checkKeys(file string, n *yaml.Node, allowed ...string) error {
	if n.Kind != yaml.MappingNode {
		return &LintError{File: file, Line: n.Line, Msg: "expected a mapping"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		found := false
		for _, a := range allowed {
			if k.Value == a {
				found = true
				break
			}
		}
		if !found {
			return &LintError{File: file, Line: k.Line, Msg: fmt.Sprintf("unknown field %q (known: %s)", k.Value, strings.Join(allowed, ", "))}
		}
	}
	return nil
}

// CheckName says whether op is a valid operator name, as profiles and
// NAME@VERSION references must spell it.
func CheckName(op string) error {
	if op == "" {
		return fmt.Errorf("operator name is empty")
	}
	for _, c := range op {
		if !(c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			return fmt.Errorf("operator name %q: use lower-case letters, digits, '-' and '.'", op)
		}
	}
	return nil
}

// ParseIndex reads and validates an index file.
func ParseIndex(file string, data []byte) (*Index, error) {
	doc, err := document(file, data)
	if err != nil {
		return nil, err
	}
	if err := checkKeys(file, doc, "apiVersion", "kind", "operator", "source", "releases", "webhooks"); err != nil {
		return nil, err
	}
	ix := &Index{File: file}
	if err := doc.Decode(ix); err != nil {
		return nil, &LintError{File: file, Msg: err.Error()}
	}
	if ix.APIVersion != APIVersion || ix.Kind != KindIndex {
		return nil, &LintError{File: file, Line: doc.Line, Msg: fmt.Sprintf("want apiVersion %s and kind %s", APIVersion, KindIndex)}
	}
	if err := CheckName(ix.Operator); err != nil {
		return nil, &LintError{File: file, Line: doc.Line, Msg: err.Error()}
	}
	rel := valueOf(doc, "releases")
	seen := map[string]bool{}
	for i := range ix.Releases {
		r := &ix.Releases[i]
		line := 0
		if rel != nil && i < len(rel.Content) {
			line = rel.Content[i].Line
		}
		v, err := CanonicalVersion(r.Version)
		if err != nil {
			return nil, &LintError{File: file, Line: line, Msg: err.Error()}
		}
		pv, err := CanonicalVersion(r.Profile)
		if err != nil {
			return nil, &LintError{File: file, Line: line, Msg: "profile: " + err.Error()}
		}
		if seen[v] {
			return nil, &LintError{File: file, Line: line, Msg: "release " + v + " is listed twice"}
		}
		seen[v] = true
		if CompareVersions(pv, v) > 0 {
			return nil, &LintError{File: file, Line: line, Msg: fmt.Sprintf("release %s points at a newer profile %s", v, pv)}
		}
		r.Version, r.Profile = v, pv
	}
	sort.Slice(ix.Releases, func(i, j int) bool { return CompareVersions(ix.Releases[i].Version, ix.Releases[j].Version) < 0 })
	hooks := valueOf(doc, "webhooks")
	for i := range ix.Webhooks {
		w := &ix.Webhooks[i]
		line := 0
		if hooks != nil && i < len(hooks.Content) {
			line = hooks.Content[i].Line
		}
		if w.Name == "" || w.File == "" || len(w.Rules) == 0 {
			return nil, &LintError{File: file, Line: line, Msg: "a webhook needs name, file and rules"}
		}
		from, err := CanonicalVersion(w.From)
		if err != nil {
			return nil, &LintError{File: file, Line: line, Msg: "webhook " + w.Name + ": from: " + err.Error()}
		}
		to, err := CanonicalVersion(w.To)
		if err != nil {
			return nil, &LintError{File: file, Line: line, Msg: "webhook " + w.Name + ": to: " + err.Error()}
		}
		if CompareVersions(from, to) > 0 {
			return nil, &LintError{File: file, Line: line, Msg: fmt.Sprintf("webhook %s: from %s is after to %s", w.Name, from, to)}
		}
		w.From, w.To = from, to
	}
	return ix, nil
}

// Marshal renders a profile or index as YAML in a stable layout.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}
