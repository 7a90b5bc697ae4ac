package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// catalog is profiles/catalog.yaml: where each operator's CRDs come from.
type catalog struct {
	Operators []entry `yaml:"operators"`
}

type entry struct {
	Name       string       `yaml:"name"`
	Repository string       `yaml:"repository"`
	Channel    string       `yaml:"channel"`
	Groups     []string     `yaml:"groups"`
	Source     string       `yaml:"source"` // dir or mirror
	Mirror     string       `yaml:"mirror"`
	Tags       tagFilter    `yaml:"tags"`
	Paths      []pathSpec   `yaml:"paths"`
	Webhooks   *webhookSpec `yaml:"webhooks"`
	Conversion []conversion `yaml:"conversion"`
	// MutationsOnly: the entry is an optional webhook of an operator, a
	// component users select next to the operator's release. Its profiles
	// hold the kinds its webhook matches and the mutations learned from
	// its code, no schema defaults (the operator's own profiles have them).
	MutationsOnly bool `yaml:"mutationsOnly"`
}

// conversion is the conversion strategy the operator's install sets on its
// multi-version CRDs (or those named in CRDs) from release From on, where
// the CRD files read do not carry it (Helm charts add a conversion webhook).
type conversion struct {
	From     string   `yaml:"from"`
	Strategy string   `yaml:"strategy"`
	CRDs     []string `yaml:"crds"`
}

// webhookSpec is where an operator's mutating admission is described: the
// install manifests that register its MutatingWebhookConfigurations, read
// at each tag, and, when its defaults are learned, the Go module whose
// defaulting scripts/learn-webhooks.sh serves and learns from.
type webhookSpec struct {
	Manifest pathList `yaml:"manifest"`
	Module   string   `yaml:"module"`
	// RulesFromCRDs: a webhook the manifest registers without rules gets
	// one per CRD of the release (every version, create and update), as
	// knative.dev/pkg's reconciler writes them at run time, one per type
	// the operator defaults, when that is every kind it defines.
	RulesFromCRDs bool `yaml:"rulesFromCRDs"`
	// Learns names the webhooks whose defaults the module's learning
	// serves, when not all of them: in a release with learned mutations,
	// a kind another webhook matches is marked webhookUnknown.
	Learns []string `yaml:"learns"`
}

// pathList is one path or a list of them, read alike: an operator of several
// controllers has several CRD folders and install manifests, each read at
// each tag that has it.
type pathList []string

func (m *pathList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*m = pathList{n.Value}
		return nil
	}
	var l []string
	if err := n.Decode(&l); err != nil {
		return err
	}
	*m = l
	return nil
}

type tagFilter struct {
	// Prefix is what the git tags put before the version (Knative's
	// knative-v1.15.2 is release v1.15.2); from, to and exclude are versions.
	Prefix  string   `yaml:"prefix"`
	Pattern string   `yaml:"pattern"`
	From    string   `yaml:"from"`
	To      string   `yaml:"to"`
	Exclude []string `yaml:"exclude"`

	re *regexp.Regexp
}

type pathSpec struct {
	From      string   `yaml:"from"`
	Dir       pathList `yaml:"dir"` // one folder, or several read together
	Recursive bool     `yaml:"recursive"`
	Skip      []string `yaml:"skip"` // base-name globs of files that are no Kubernetes objects
}

func readCatalog(file string) (*catalog, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var c catalog
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	seen := map[string]bool{}
	for i := range c.Operators {
		e := &c.Operators[i]
		if err := e.validate(); err != nil {
			return nil, fmt.Errorf("%s: operator %q: %v", file, e.Name, err)
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("%s: operator %q is listed twice", file, e.Name)
		}
		seen[e.Name] = true
	}
	return &c, nil
}

func (e *entry) validate() error {
	if e.Name == "" || e.Repository == "" || len(e.Groups) == 0 || len(e.Paths) == 0 {
		return fmt.Errorf("name, repository, groups and paths are required")
	}
	if e.Webhooks != nil && (len(e.Webhooks.Manifest) == 0 || slices.Contains(e.Webhooks.Manifest, "") || e.Source != "mirror") {
		return fmt.Errorf("webhooks needs a manifest and a mirror source")
	}
	for i, p := range e.Paths {
		if len(p.Dir) == 0 || slices.Contains(p.Dir, "") {
			return fmt.Errorf("paths[%d]: dir is required", i)
		}
	}
	if e.MutationsOnly && (e.Webhooks == nil || e.Webhooks.Module == "") {
		return fmt.Errorf("mutationsOnly needs webhooks with a manifest and the module its mutations are learned from")
	}
	for i, c := range e.Conversion {
		if c.From == "" || (c.Strategy != operators.ConversionNone && c.Strategy != operators.ConversionWebhook) {
			return fmt.Errorf("conversion[%d]: from and strategy (%s or %s) are required", i, operators.ConversionNone, operators.ConversionWebhook)
		}
		if i > 0 && operators.CompareVersions(e.Conversion[i-1].From, c.From) >= 0 {
			return fmt.Errorf("conversion: from must increase (%s then %s)", e.Conversion[i-1].From, c.From)
		}
	}
	switch e.Source {
	case "dir":
		if len(e.Paths) != 1 || e.Mirror != "" || e.Tags.Pattern != "" {
			return fmt.Errorf("a dir source has one path and no mirror, tags or webhooks")
		}
	case "mirror":
		if e.Mirror == "" || e.Tags.Pattern == "" || e.Tags.From == "" || e.Tags.To == "" {
			return fmt.Errorf("a mirror source needs mirror and tags (pattern, from, to)")
		}
		re, err := regexp.Compile(e.Tags.Pattern)
		if err != nil {
			return fmt.Errorf("tags.pattern: %v", err)
		}
		e.Tags.re = re
		for i, p := range e.Paths {
			if p.From == "" {
				return fmt.Errorf("paths[%d]: from is required for a mirror source", i)
			}
			if i > 0 && operators.CompareVersions(e.Paths[i-1].From, p.From) >= 0 {
				return fmt.Errorf("paths: from must increase (%s then %s)", e.Paths[i-1].From, p.From)
			}
		}
		if operators.CompareVersions(e.Paths[0].From, e.Tags.From) > 0 {
			return fmt.Errorf("paths: the first from %s is after tags.from %s", e.Paths[0].From, e.Tags.From)
		}
	default:
		return fmt.Errorf("source %q: use dir or mirror", e.Source)
	}
	return nil
}

// describe is the source as the index and profile descriptions name it.
func (e *entry) describe() string {
	var dirs []string
	for _, p := range e.Paths {
		ds := slices.Clone(p.Dir)
		for i := range ds {
			if p.Recursive {
				ds[i] += "/**"
			}
		}
		d := strings.Join(ds, " + ")
		if len(e.Paths) > 1 {
			d += " (from " + p.From + ")"
		}
		dirs = append(dirs, d)
	}
	return e.Repository + " " + strings.Join(dirs, ", ")
}

// setConversion sets the conversion strategy the install gives the
// multi-version CRDs at a tag, when the catalog states one.
func (e *entry) setConversion(tag string, crds []apiextv1.CustomResourceDefinition) {
	var at *conversion
	for i, c := range e.Conversion {
		if operators.CompareVersions(c.From, tag) <= 0 {
			at = &e.Conversion[i]
		}
	}
	if at == nil {
		return
	}
	for i := range crds {
		if len(crds[i].Spec.Versions) > 1 && (len(at.CRDs) == 0 || slices.Contains(at.CRDs, crds[i].Name)) {
			crds[i].Spec.Conversion = &apiextv1.CustomResourceConversion{Strategy: apiextv1.ConversionStrategyType(at.Strategy)}
		}
	}
}

// pathAt is the CRD location in force at a tag.
func (e *entry) pathAt(tag string) pathSpec {
	out := e.Paths[0]
	for _, p := range e.Paths {
		if operators.CompareVersions(p.From, tag) <= 0 {
			out = p
		}
	}
	return out
}

// selects says whether a git tag ref, of version tag, is one of the
// entry's final releases.
func (t *tagFilter) selects(ref, tag string) bool {
	if !t.re.MatchString(ref) {
		return false
	}
	if operators.CompareVersions(tag, t.From) < 0 || operators.CompareVersions(tag, t.To) > 0 {
		return false
	}
	for _, x := range t.Exclude {
		if x == tag {
			return false
		}
	}
	return true
}

func (e *entry) checkGroup(crdName, group, where string) error {
	for _, g := range e.Groups {
		if g == group {
			return nil
		}
	}
	return fmt.Errorf("%s: CRD %s is in group %s, which the catalog does not list for %s (groups: %s)", where, crdName, group, e.Name, strings.Join(e.Groups, ", "))
}
