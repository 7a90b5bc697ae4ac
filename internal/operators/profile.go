// Package operators is the profile model: what one operator release's
// admission adds to objects, how profiles are loaded, validated, resolved
// to a release, and extracted from CRDs.
package operators

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/itchyny/gojq"
	"go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// APIVersion and kinds of the profile file format.
const (
	APIVersion  = "cmp-defaults.io/v1alpha1"
	KindProfile = "OperatorProfile"
	KindIndex   = "OperatorIndex"
)

// Profile is what one operator release's admission adds, per apiVersion and kind.
type Profile struct {
	APIVersion string `yaml:"apiVersion" json:"apiVersion"`
	Kind       string `yaml:"kind" json:"kind"`
	Operator   string `yaml:"operator" json:"operator"`
	Version    string `yaml:"version" json:"version"`
	// Channel names the release channel of operators that ship their CRDs
	// in more than one flavour (Gateway API: standard or experimental).
	Channel     string      `yaml:"channel,omitempty" json:"channel,omitempty"`
	Description string      `yaml:"description,omitempty" json:"description,omitempty"`
	Provenance  *Provenance `yaml:"provenance,omitempty" json:"provenance,omitempty"`
	Learned     *Learned    `yaml:"learned,omitempty" json:"learned,omitempty"`
	Resources   []Resource  `yaml:"resources" json:"resources"`

	File   string `yaml:"-" json:"-"` // where it was read from
	Source string `yaml:"-" json:"-"` // "shipped" or the user directory
}

// Provenance says which upstream files a generated profile was read from,
// so that anyone can fetch the same blobs and re-check it.
type Provenance struct {
	Repository string           `yaml:"repository" json:"repository"`
	Tag        string           `yaml:"tag" json:"tag"`
	Files      []ProvenanceFile `yaml:"files" json:"files"`
}

// ProvenanceFile is one CRD file read: its path at the tag and its git blob id.
type ProvenanceFile struct {
	Path string `yaml:"path" json:"path"`
	Blob string `yaml:"blob" json:"blob"`
}

// Learned is the provenance of a profile that 'profiles learn' took from a
// cluster's admission.
type Learned struct {
	Cluster       string   `yaml:"cluster" json:"cluster"`                                 // API server URL
	Context       string   `yaml:"context,omitempty" json:"context,omitempty"`             // kubeconfig context
	SecondContext string   `yaml:"secondContext,omitempty" json:"secondContext,omitempty"` // of the second dry run (another user)
	ServerVersion string   `yaml:"serverVersion" json:"serverVersion"`
	Time          string   `yaml:"time,omitempty" json:"time,omitempty"`           // RFC 3339, only when given: output stays reproducible
	Objects       int      `yaml:"objects" json:"objects"`                         // objects dry-run
	Varied        int      `yaml:"varied,omitempty" json:"varied,omitempty"`       // objects the learner varied to find the field that decides a default
	Operators     []string `yaml:"operators,omitempty" json:"operators,omitempty"` // releases whose fills came first
	// Module and Configuration: for a webhook built from the operator's Go
	// module (scripts/learn-webhooks.sh), its module@version and the
	// operator configuration it ran with.
	Module        string `yaml:"module,omitempty" json:"module,omitempty"`
	Configuration string `yaml:"configuration,omitempty" json:"configuration,omitempty"`
	// Overrides names the release this profile replaces (NAME@VERSION and
	// the profile file its CRD schema defaults were copied from): its
	// mutations are the learned ones, not the release's.
	Overrides string `yaml:"overrides,omitempty" json:"overrides,omitempty"`
}

// String says where the profile was learned, for reports.
func (l *Learned) String() string {
	s := "learned from " + l.Cluster + " (Kubernetes " + l.ServerVersion
	if l.Context != "" {
		s += ", context " + l.Context
	}
	s += fmt.Sprintf(") from %d object(s)", l.Objects)
	if l.Varied > 0 {
		s += fmt.Sprintf(" and %d varied", l.Varied)
	}
	if len(l.Operators) > 0 {
		s += " beyond " + strings.Join(l.Operators, ", ")
	}
	if l.Overrides != "" {
		s += ", overriding " + l.Overrides
	}
	if l.Time != "" {
		s += " at " + l.Time
	}
	return s
}

// Resource holds the rules for one group/version/kind.
type Resource struct {
	Group   string `yaml:"group" json:"group"`
	Version string `yaml:"version" json:"version"`
	Kind    string `yaml:"kind" json:"kind"`
	// Storage marks the CRD's storage version; informational.
	Storage bool `yaml:"storage,omitempty" json:"storage,omitempty"`
	// Maps lists schema nodes that are maps (additionalProperties): a "[]"
	// right after one of these paths iterates map values, not list items.
	Maps      []string   `yaml:"maps,omitempty" json:"maps,omitempty"`
	Defaults  []Default  `yaml:"defaults,omitempty" json:"defaults,omitempty"`
	Mutations []Mutation `yaml:"mutations,omitempty" json:"mutations,omitempty"`
	// Rewrites are values the webhook replaces when they are written
	// (a value the user wrote is never changed: fill warns instead).
	Rewrites []Rewrite `yaml:"rewrites,omitempty" json:"rewrites,omitempty"`
	// Webhook names the release's mutating webhook that matches this kind
	// (from its MutatingWebhookConfiguration): it may write any field, so
	// only a mutation rule makes a field it writes known.
	Webhook string `yaml:"webhook,omitempty" json:"webhook,omitempty"`

	Line int `yaml:"-" json:"-"`
}

// APIVersion is group/version, or version for the core group.
func (r Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// Default is a CRD schema default.
type Default struct {
	Path     string `yaml:"path" json:"path"`
	Type     string `yaml:"type,omitempty" json:"type,omitempty"`
	Nullable bool   `yaml:"nullable,omitempty" json:"nullable,omitempty"`
	Value    any    `yaml:"value" json:"value"`

	Line int `yaml:"-" json:"-"`

	// segs is Path parsed while the profile was validated, so that
	// compiling it does not parse it again; parsed says from which Path.
	// A profile read from its compiled form keeps the parsed path encoded
	// instead (compiled), decoded when a kind's rules are first built.
	segs     []tree.Seg
	parsed   string
	compiled string
}

// Segs is the default's path parsed (tree.ParsePath): kept from validation
// when the profile was read from a file, parsed now otherwise. It only
// reads d, so compiling a profile on several goroutines is safe.
func (d *Default) Segs() ([]tree.Seg, error) {
	if d.parsed == d.Path {
		if d.segs != nil {
			return d.segs, nil
		}
		if d.compiled != "" {
			return decodeSegs(d.Path, d.compiled), nil
		}
	}
	return tree.ParsePath(d.Path)
}

// Checked says whether the path was checked when the profile was read
// (validated, or compiled from a validated file): Segs cannot fail then.
func (d *Default) Checked() bool {
	return d.parsed == d.Path && (d.segs != nil || d.compiled != "")
}

// Mutation is a known mutating-webhook default: Value set where the
// field at Path is absent. Three forms change what "set" means:
// Format, Insert and Drop.
type Mutation struct {
	Path  string `yaml:"path" json:"path"`
	Value any    `yaml:"value" json:"value"`
	// Format is a string value, instead of Value, that depends on the list
	// item filled: {index} is its index in its list, {n} its position
	// among the items of that list the rule fills (both from 0).
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
	// Insert ("first" or "last") inserts Value as an entry of the list at
	// Path unless an entry has the same value of the field Key: the
	// entries written stay as they are.
	Insert string `yaml:"insert,omitempty" json:"insert,omitempty"`
	Key    string `yaml:"key,omitempty" json:"key,omitempty"`
	// Drop removes the field where it holds Value, a zero value that
	// admission drops (its Go type omits it; no schema default, so absent
	// reads the same): a change of representation, not of value.
	Drop   bool   `yaml:"drop,omitempty" json:"drop,omitempty"`
	When   string `yaml:"when,omitempty" json:"when,omitempty"`
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`

	Line int `yaml:"-" json:"-"`
}

// MarshalYAML leaves out the value of a Format rule (it has none); a
// false or 0 value is kept.
func (m Mutation) MarshalYAML() (any, error) {
	type out struct {
		Path   string `yaml:"path"`
		Value  *any   `yaml:"value,omitempty"`
		Format string `yaml:"format,omitempty"`
		Insert string `yaml:"insert,omitempty"`
		Key    string `yaml:"key,omitempty"`
		Drop   bool   `yaml:"drop,omitempty"`
		When   string `yaml:"when,omitempty"`
		Reason string `yaml:"reason,omitempty"`
	}
	o := out{Path: m.Path, Format: m.Format, Insert: m.Insert, Key: m.Key, Drop: m.Drop, When: m.When, Reason: m.Reason}
	if m.Format == "" {
		o.Value = &m.Value
	}
	return o, nil
}

// Insert positions.
const (
	InsertFirst = "first"
	InsertLast  = "last"
)

// Rewrite is a value admission replaces where it is written: From at Path
// is stored as To. It is never filled (the user wrote From); fill warns.
type Rewrite struct {
	Path   string `yaml:"path" json:"path"`
	When   string `yaml:"when,omitempty" json:"when,omitempty"`
	From   any    `yaml:"from" json:"from"`
	To     any    `yaml:"to" json:"to"`
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`

	Line int `yaml:"-" json:"-"`
}

// Index lists every release checked for one operator and the profile
// version in force for it.
type Index struct {
	APIVersion string    `yaml:"apiVersion" json:"apiVersion"`
	Kind       string    `yaml:"kind" json:"kind"`
	Operator   string    `yaml:"operator" json:"operator"`
	Source     string    `yaml:"source,omitempty" json:"source,omitempty"`
	Releases   []Release `yaml:"releases" json:"releases"`
	// Webhooks are the mutating admission webhooks the operator's install
	// manifests register for its own kinds, release range by release range.
	// They are a record, not rules: what they write is filled only where a
	// profile's mutation rule says so.
	Webhooks []Webhook `yaml:"webhooks,omitempty" json:"webhooks,omitempty"`

	File string `yaml:"-" json:"-"`
}

// Webhook is one mutating webhook over the checked releases From..To
// (inclusive) whose install manifest File registers it with these rules.
type Webhook struct {
	Name  string        `yaml:"name" json:"name"`
	From  string        `yaml:"from" json:"from"`
	To    string        `yaml:"to" json:"to"`
	File  string        `yaml:"file" json:"file"`
	Rules []WebhookRule `yaml:"rules" json:"rules"`
}

// WebhookRule is what a webhook matches, as its configuration states it.
type WebhookRule struct {
	APIGroups   []string `yaml:"apiGroups,flow" json:"apiGroups"`
	APIVersions []string `yaml:"apiVersions,flow" json:"apiVersions"`
	Resources   []string `yaml:"resources,flow" json:"resources"`
	Operations  []string `yaml:"operations,flow" json:"operations"`
}

// Release is one checked release and the profile that covers it.
type Release struct {
	Version string `yaml:"version" json:"version"`
	Date    string `yaml:"date,omitempty" json:"date,omitempty"`
	Profile string `yaml:"profile" json:"profile"`
	// Mutations says where the profile's webhook mutations for this
	// release come from, or that none were learned.
	Mutations string `yaml:"mutations,omitempty" json:"mutations,omitempty"`
}

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

// ParseProfile reads and validates a profile file.
func ParseProfile(file string, data []byte) (*Profile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &LintError{File: file, Msg: "not valid YAML: " + err.Error()}
	}
	if len(root.Content) == 0 {
		return nil, &LintError{File: file, Msg: "empty file"}
	}
	doc := root.Content[0]
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
	if err := checkName(p.Operator); err != nil {
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
		if err := checkKeys(file, rn, "group", "version", "kind", "storage", "maps", "defaults", "mutations", "rewrites", "webhook"); err != nil {
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

// parseContainerPath parses a path that may end in a field or in [].
func parseContainerPath(p string) ([]tree.Seg, error) {
	segs, err := tree.ParsePath(p + ".x")
	if err != nil {
		return nil, err
	}
	return segs[:len(segs)-1], nil
}

// nonDeterministic are jq functions and variables whose result depends on
// the time, the environment or other input than the object: a rule using
// them would make the same manifests render differently per run.
var nonDeterministic = map[string]string{
	"now": "depends on the current time", "localtime": "depends on the time zone", "strflocaltime": "depends on the time zone",
	"env": "depends on the environment", "$ENV": "depends on the environment",
	"input": "reads other input", "inputs": "reads other input", "input_filename": "depends on the input file",
	"input_line_number": "depends on the input", "$__loc__": "depends on where the rule is written",
	"$__prog_args": "depends on the command line", "debug": "writes to stderr", "stderr": "writes to stderr",
	"halt": "ends the process", "halt_error": "ends the process",
}

// checkDeterministic refuses a query that calls a function from
// nonDeterministic (found anywhere in its syntax tree).
func checkDeterministic(q *gojq.Query) error {
	var bad string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if bad != "" {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				if f, ok := v.Interface().(*gojq.Func); ok {
					if why, found := nonDeterministic[f.Name]; found {
						bad = f.Name + " " + why
						return
					}
				}
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(q))
	if bad != "" {
		return fmt.Errorf("%s; rules must give the same result for the same object on every run", bad)
	}
	return nil
}

// CompileJQ compiles a jq expression; asPath wraps it in path(...) so that it
// yields the paths it selects, the way Argo CD reads jqPathExpressions.
// Functions whose result depends on anything but the object are refused.
func CompileJQ(expr string, asPath bool) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("jq %q: %v", expr, err)
	}
	if err := checkDeterministic(q); err != nil {
		return nil, fmt.Errorf("jq %q: %v", expr, err)
	}
	if asPath {
		optional(q)
		q, err = gojq.Parse("path(" + q.String() + ")")
		if err != nil {
			return nil, fmt.Errorf("jq %q: %v", expr, err)
		}
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("jq %q: %v", expr, err)
	}
	return code, nil
}

// optional makes every [] in a path expression tolerant of null and of
// wrong types, so one object without a list does not abort the others.
func optional(q *gojq.Query) {
	if q == nil {
		return
	}
	optional(q.Left)
	optional(q.Right)
	if q.Term != nil {
		// gojq keeps "?" as a suffix of its own after the "[]".
		var out []*gojq.Suffix
		for i, s := range q.Term.SuffixList {
			out = append(out, s)
			if s.Iter && (i+1 == len(q.Term.SuffixList) || !q.Term.SuffixList[i+1].Optional) {
				out = append(out, &gojq.Suffix{Optional: true})
			}
		}
		q.Term.SuffixList = out
		if q.Term.Query != nil {
			optional(q.Term.Query)
		}
	}
}

// CheckType says whether v fits a schema type ("" accepts anything).
func CheckType(typ string, v any) error {
	ok := true
	switch typ {
	case "":
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "integer":
		_, ok = v.(int64)
	case "number":
		switch v.(type) {
		case int64, float64:
		default:
			ok = false
		}
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	default:
		return fmt.Errorf("unknown type %q (want string, boolean, integer, number, object or array)", typ)
	}
	if !ok {
		return fmt.Errorf("value %s is not of type %s", short(v), typ)
	}
	return nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// normalize turns a YAML-decoded value into the JSON value types objects
// use (int64, float64, string, bool, []any, map[string]any).
func normalize(v any) (any, error) {
	// Most defaults are plain scalars: they come out of the JSON round
	// trip as they went in (ints as int64), so skip it for them.
	switch x := v.(type) {
	case bool:
		return x, nil
	case int:
		return int64(x), nil
	case string:
		if utf8.ValidString(x) {
			return x, nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = utiljson.Unmarshal(b, &out)
	return out, err
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

func checkName(op string) error {
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
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &LintError{File: file, Msg: "not valid YAML: " + err.Error()}
	}
	if len(root.Content) == 0 {
		return nil, &LintError{File: file, Msg: "empty file"}
	}
	doc := root.Content[0]
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
	if err := checkName(ix.Operator); err != nil {
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
