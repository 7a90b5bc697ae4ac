// Package operators is the profile model: what one operator release's
// admission adds to objects (profile.go), how profile files are read and
// validated (parse.go, validate.go, jq.go), their compiled form
// (compiled*.go), and the store that loads them and resolves a release
// (store.go, resolve.go). Package extract makes profiles from CRDs.
package operators

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

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
	// WebhookUnknown: what Webhook writes was not learned for this kind,
	// though the release's other webhooks were (OpenKruise v1.9.0's
	// workloads are learned, its SidecarSet webhook is not): the kind's
	// webhook defaults are unknown, as in a release with none learned.
	WebhookUnknown bool `yaml:"webhookUnknown,omitempty" json:"webhookUnknown,omitempty"`
	// StorageVersion is the CRD's storage version when it is not this one:
	// the API server stores the object in it and applies its defaults
	// again whenever it reads the object back, before it converts the
	// object to this version. ReadDefaults are those defaults at the
	// fields this version keeps (its schema prunes the others), applied
	// after Defaults and Mutations. With Conversion "Webhook" the
	// operator's conversion webhook decides which of them come back: they
	// are told, not filled.
	StorageVersion string    `yaml:"storageVersion,omitempty" json:"storageVersion,omitempty"`
	Conversion     string    `yaml:"conversion,omitempty" json:"conversion,omitempty"`
	ReadDefaults   []Default `yaml:"readDefaults,omitempty" json:"readDefaults,omitempty"`

	Line int `yaml:"-" json:"-"`
}

// Conversion strategies of a CRD, as its spec.conversion names them.
const (
	ConversionNone    = "None"
	ConversionWebhook = "Webhook"
)

// FillsOnRead reports whether the resource's ReadDefaults are filled: the
// CRD converts without a webhook, so the API server's defaults on read are
// known field by field.
func (r *Resource) FillsOnRead() bool {
	return len(r.ReadDefaults) > 0 && r.Conversion != ConversionWebhook
}

// FilledDefaults are the schema defaults fill applies to the kind: its own
// and, when they are filled, those on read from the storage version.
func (r *Resource) FilledDefaults() []Default {
	if !r.FillsOnRead() {
		return r.Defaults
	}
	return append(r.Defaults[:len(r.Defaults):len(r.Defaults)], r.ReadDefaults...)
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
// When is a condition on the object as written, before anything is
// filled: what the webhook receives.
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

// SortResources puts resources in the order profiles list them: by group,
// kind, version.
func SortResources(rs []Resource) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Version < b.Version
	})
}

// SameRules reports whether two profiles declare the same rules, whatever
// their versions: a release whose rules equal the previous one's needs no
// profile file of its own.
func SameRules(a, b *Profile) bool {
	ca, cb := *a, *b
	ca.Version, cb.Version = "", ""
	ca.Description, cb.Description = "", ""
	ca.Provenance, cb.Provenance = nil, nil
	ma, err1 := Marshal(&ca)
	mb, err2 := Marshal(&cb)
	return err1 == nil && err2 == nil && bytes.Equal(ma, mb)
}
