package operators

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// validateResource checks one resource of a profile and returns every
// problem: a broken rule does not hide the next one.
func validateResource(file string, rn *yaml.Node, r *Resource) []error {
	var errs []error
	badMap := map[int]bool{}
	for i, m := range r.Maps {
		if _, err := parseContainerPath(m); err != nil {
			errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: "maps: " + err.Error()})
			badMap[i] = true
		}
	}
	maps := ParseMaps(r.Maps)
	used := make([]bool, len(maps))
	errs = append(errs, validateDefaults(file, rn, "defaults", r.Defaults, maps, used)...)
	errs = append(errs, validateDefaults(file, rn, "readDefaults", r.ReadDefaults, maps, used)...)
	switch {
	case r.Conversion != "" && r.Conversion != ConversionWebhook:
		errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: fmt.Sprintf("conversion %q: the only value is %s (absent means %s)", r.Conversion, ConversionWebhook, ConversionNone)})
	case len(r.ReadDefaults) > 0 && r.StorageVersion == "":
		errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: "readDefaults need storageVersion, the version whose defaults they are"})
	case r.StorageVersion == r.Version && r.Version != "":
		errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: "storageVersion is this resource's own version: its defaults are the defaults"})
	case r.WebhookUnknown && (r.Webhook == "" || len(r.Mutations) > 0):
		errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: "webhookUnknown needs the webhook it is about, and no mutations of its own"})
	}
	for i, m := range r.Maps {
		if !used[i] && !badMap[i] {
			errs = append(errs, &LintError{File: file, Line: rn.Line, Msg: fmt.Sprintf("maps: %s is followed by [] in no default path", m)})
		}
	}
	errs = append(errs, validateMutations(file, rn, r)...)
	return append(errs, validateRewrites(file, rn, r)...)
}

// validateDefaults checks the list of schema defaults under key and marks
// the maps its paths use.
func validateDefaults(file string, rn *yaml.Node, key string, defs []Default, maps MapPaths, used []bool) []error {
	dn := valueOf(rn, key)
	if dn == nil {
		return nil
	}
	if err := sameLength(file, dn, len(defs), key); err != nil {
		return []error{err}
	}
	var errs []error
	paths := make(map[string]bool, len(defs))
	for i, n := range dn.Content {
		d := &defs[i]
		d.Line = n.Line
		if err := checkKeys(file, n, "path", "type", "nullable", "value"); err != nil {
			errs = append(errs, err)
			continue
		}
		segs, err := tree.ParsePath(d.Path)
		if err != nil {
			errs = append(errs, &LintError{File: file, Line: n.Line, Rule: d.Path, Msg: err.Error()})
			continue
		}
		d.segs, d.parsed = segs, d.Path
		if paths[d.Path] {
			errs = append(errs, &LintError{File: file, Line: n.Line, Rule: d.Path, Msg: "path is listed twice"})
			continue
		}
		paths[d.Path] = true
		if len(maps) > 0 {
			for j, s := range segs {
				if s.Iter {
					maps.mark(segs[:j], used)
				}
			}
		}
		if valueOf(n, "value") == nil {
			errs = append(errs, &LintError{File: file, Line: n.Line, Rule: d.Path, Msg: "value is missing"})
			continue
		}
		v, err := normalize(d.Value)
		if err != nil || v == nil {
			errs = append(errs, &LintError{File: file, Line: n.Line, Rule: d.Path, Msg: "value must be a non-null JSON value"})
			continue
		}
		d.Value = v
		if err := CheckType(d.Type, v); err != nil {
			errs = append(errs, &LintError{File: file, Line: n.Line, Rule: d.Path, Msg: err.Error()})
			continue
		}
	}
	return errs
}

// check says whether the mutation's form is whole: Format without Value,
// Insert with an object Value that has Key, Drop of a zero scalar.
func (m *Mutation) check() error {
	switch {
	case m.Format != "" && (m.Value != nil || m.Insert != "" || m.Drop):
		return fmt.Errorf("format replaces value, insert and drop: give only one")
	case m.Format != "" && !strings.Contains(m.Format, "{index}") && !strings.Contains(m.Format, "{n}"):
		return fmt.Errorf("format %q has neither {index} nor {n}: use value", m.Format)
	case m.Insert != "" && m.Drop:
		return fmt.Errorf("insert and drop: give only one")
	case m.Insert != "":
		if m.Insert != InsertFirst && m.Insert != InsertLast {
			return fmt.Errorf("insert %q: want %s or %s", m.Insert, InsertFirst, InsertLast)
		}
		obj, ok := m.Value.(map[string]any)
		if !ok || m.Key == "" || obj[m.Key] == nil {
			return fmt.Errorf("insert needs key (a field) and an object value that has it")
		}
	case m.Key != "":
		return fmt.Errorf("key is only for insert")
	case m.Drop:
		switch m.Value {
		case false, int64(0), float64(0), "":
		default:
			return fmt.Errorf("drop removes a zero value (false, 0 or \"\"), not %s", short(m.Value))
		}
	}
	return nil
}

// sameLength guards against list entries that YAML decoding dropped
// (null items): every entry must be a mapping.
func sameLength(file string, n *yaml.Node, decoded int, what string) error {
	for _, c := range n.Content {
		if c.Kind != yaml.MappingNode {
			return &LintError{File: file, Line: c.Line, Msg: what + " entries must be mappings"}
		}
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) != decoded {
		return &LintError{File: file, Line: n.Line, Msg: what + " must be a list of mappings"}
	}
	return nil
}

// validateMutations checks the mutations of a resource, every one.
func validateMutations(file string, rn *yaml.Node, r *Resource) []error {
	var errs []error
	if mn := valueOf(rn, "mutations"); mn != nil {
		if err := sameLength(file, mn, len(r.Mutations), "mutations"); err != nil {
			return append(errs, err)
		}
		for i, n := range mn.Content {
			m := &r.Mutations[i]
			m.Line = n.Line
			if err := checkKeys(file, n, "path", "value", "format", "insert", "key", "drop", "when", "reason"); err != nil {
				errs = append(errs, err)
				continue
			}
			if _, err := CompileJQ(m.Path, true); err != nil {
				errs = append(errs, &LintError{File: file, Line: n.Line, Rule: m.Path, Msg: err.Error()})
				continue
			}
			if m.When != "" {
				if _, err := CompileJQ(m.When, false); err != nil {
					errs = append(errs, &LintError{File: file, Line: n.Line, Rule: m.Path, Msg: "when: " + err.Error()})
					continue
				}
			}
			if m.Format == "" && valueOf(n, "value") == nil {
				errs = append(errs, &LintError{File: file, Line: n.Line, Rule: m.Path, Msg: "value must be a JSON value"})
				continue
			}
			v, err := normalize(m.Value)
			if err != nil {
				errs = append(errs, &LintError{File: file, Line: n.Line, Rule: m.Path, Msg: "value must be a JSON value"})
				continue
			}
			m.Value = v
			if err := m.check(); err != nil {
				errs = append(errs, &LintError{File: file, Line: n.Line, Rule: m.Path, Msg: err.Error()})
				continue
			}
		}
	}
	return errs
}

// validateRewrites checks the rewrites of a resource, every one.
func validateRewrites(file string, rn *yaml.Node, r *Resource) []error {
	var errs []error
	if wn := valueOf(rn, "rewrites"); wn != nil {
		if err := sameLength(file, wn, len(r.Rewrites), "rewrites"); err != nil {
			return append(errs, err)
		}
		for i, n := range wn.Content {
			w := &r.Rewrites[i]
			w.Line = n.Line
			if err := checkKeys(file, n, "path", "when", "from", "to", "reason"); err != nil {
				errs = append(errs, err)
				continue
			}
			if _, err := CompileJQ(w.Path, true); err != nil {
				errs = append(errs, &LintError{File: file, Line: n.Line, Rule: w.Path, Msg: err.Error()})
				continue
			}
			if w.When != "" {
				if _, err := CompileJQ(w.When, false); err != nil {
					errs = append(errs, &LintError{File: file, Line: n.Line, Rule: w.Path, Msg: "when: " + err.Error()})
					continue
				}
			}
			from, err1 := normalize(w.From)
			to, err2 := normalize(w.To)
			if err1 != nil || err2 != nil || valueOf(n, "from") == nil || valueOf(n, "to") == nil {
				errs = append(errs, &LintError{File: file, Line: n.Line, Rule: w.Path, Msg: "from and to must be JSON values"})
				continue
			}
			w.From, w.To = from, to
		}
	}
	return errs
}
