// Package diff compares two operator releases: their profiles (which
// admission defaults were added, removed or changed) and what filling the
// same objects with each of them produces.
package diff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// How a field change reads in reports: the field appears, disappears or
// changes (a tree.Change of kind tree.Added, tree.Removed or Changed).
const (
	Appears    = "appears"
	Disappears = "disappears"
	Changes    = "changes"
	// Unknown: one release fills the field with its webhook's defaults,
	// and the other's webhook defaults were not learned, so whether it
	// writes the field too is not known (FieldChange.Unknown names it).
	Unknown = "unknown"
)

var fieldVerbs = map[tree.Kind]string{tree.Added: Appears, tree.Removed: Disappears, tree.Changed: Changes}

// Release names one side of the comparison.
type Release struct {
	Operator string `json:"operator"`
	Release  string `json:"release"`
	Profile  string `json:"profile"`
	File     string `json:"file"`
	Warning  string `json:"warning,omitempty"`
	// WebhookDefaults is learned, none (no webhook) or unknown.
	WebhookDefaults string `json:"webhookDefaults"`
}

// NewRelease describes a resolution.
func NewRelease(r *operators.Resolution) Release {
	out := Release{Operator: r.Operator, Release: r.Requested, Warning: r.Warning}
	if r.Profile != nil {
		out.Profile, out.File = r.Profile.Version, r.Profile.File
	}
	out.WebhookDefaults = r.Webhooks
	if out.WebhookDefaults == "" {
		out.WebhookDefaults = operators.WebhookNone
	}
	return out
}

func (r Release) String() string { return r.Operator + "@" + strings.TrimPrefix(r.Release, "v") }

// RuleChange is one default or mutation that differs between profiles.
type RuleChange struct {
	Change tree.Kind `json:"change"` // added, removed or changed
	Type   string    `json:"type"`   // default or mutation
	Path   string    `json:"path"`
	When   string    `json:"when,omitempty"`
	From   any       `json:"from,omitempty"`
	To     any       `json:"to,omitempty"`
	// Detail says what else changed for a default: type or nullable.
	Detail string `json:"detail,omitempty"`
	// Unknown names the release whose webhook defaults were not learned,
	// for a mutation the other release has: it may well still write it.
	Unknown string `json:"unknown,omitempty"`
}

// KindChange groups the changes of one apiVersion and kind.
type KindChange struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Change     tree.Kind    `json:"change"` // added or removed (the profile gains or loses the kind), or changed
	Rules      []RuleChange `json:"rules"`
}

// ProfileDiff is what changes between the profiles of two releases.
type ProfileDiff struct {
	From  Release      `json:"from"`
	To    Release      `json:"to"`
	Kinds []KindChange `json:"kinds"`
}

// Count is the number of rule changes.
func (d *ProfileDiff) Count() int {
	n := 0
	for _, k := range d.Kinds {
		n += len(k.Rules)
	}
	return n
}

type ruleVal struct {
	typ, when string
	value     any
	nullable  bool
}

func resourceRules(r *operators.Resource) (map[string]ruleVal, []string) {
	m := map[string]ruleVal{}
	var order []string
	for _, d := range r.Defaults {
		k := "default\x00" + d.Path
		m[k] = ruleVal{typ: d.Type, value: d.Value, nullable: d.Nullable}
		order = append(order, k)
	}
	// The storage version's defaults, added when the API server reads the
	// object: filled, or only told when a conversion webhook decides.
	read := "default on read from " + r.StorageVersion
	if !r.FillsOnRead() {
		read += " (conversion webhook: not filled)"
	}
	for _, d := range r.ReadDefaults {
		k := read + "\x00" + d.Path
		m[k] = ruleVal{typ: d.Type, value: d.Value, nullable: d.Nullable}
		order = append(order, k)
	}
	for _, mu := range r.Mutations {
		// A form (insert, drop, format) is another rule at the same path.
		k := "mutation\x00" + mu.Path + "\x00" + mu.When
		v := mu.Value
		switch {
		case mu.Insert != "":
			k += "\x00insert " + mu.Insert + " by " + mu.Key
		case mu.Drop:
			k += "\x00drop"
		case mu.Format != "":
			k += "\x00format"
			v = mu.Format
		}
		m[k] = ruleVal{value: v, when: mu.When}
		order = append(order, k)
	}
	return m, order
}

func resources(p *operators.Profile) (map[string]*operators.Resource, []string) {
	m := map[string]*operators.Resource{}
	var keys []string
	if p == nil {
		return m, nil
	}
	for i := range p.Resources {
		r := &p.Resources[i]
		k := r.APIVersion() + " " + r.Kind
		m[k] = r
		keys = append(keys, k)
	}
	return m, keys
}

// Profiles compares the profiles in force for two releases.
func Profiles(a, b *operators.Resolution) *ProfileDiff {
	d := &ProfileDiff{From: NewRelease(a), To: NewRelease(b), Kinds: []KindChange{}}
	ra, ka := resources(a.Profile)
	rb, kb := resources(b.Profile)
	sorted := slices.Concat(ka, kb)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	for _, key := range sorted {
		x, y := ra[key], rb[key]
		av, kind, _ := strings.Cut(key, " ")
		kc := KindChange{APIVersion: av, Kind: kind, Change: tree.Changed, Rules: []RuleChange{}}
		var mx, my map[string]ruleVal
		var ox, oy []string
		switch {
		case x == nil:
			kc.Change = tree.Added
			mx = map[string]ruleVal{}
			my, oy = resourceRules(y)
		case y == nil:
			kc.Change = tree.Removed
			mx, ox = resourceRules(x)
			my = map[string]ruleVal{}
		default:
			mx, ox = resourceRules(x)
			my, oy = resourceRules(y)
		}
		for _, k := range ox {
			vx := mx[k]
			vy, ok := my[k]
			typ, path := splitKey(k)
			switch {
			case !ok:
				kc.Rules = append(kc.Rules, RuleChange{Change: tree.Removed, Type: typ, Path: path, When: vx.when, From: vx.value})
			case !tree.Equal(vx.value, vy.value) || vx.typ != vy.typ || vx.nullable != vy.nullable:
				rc := RuleChange{Change: tree.Changed, Type: typ, Path: path, When: vx.when, From: vx.value, To: vy.value}
				var det []string
				if vx.typ != vy.typ {
					det = append(det, "type "+orNone(vx.typ)+" -> "+orNone(vy.typ))
				}
				if vx.nullable != vy.nullable {
					det = append(det, "nullable "+strconv.FormatBool(vx.nullable)+" -> "+strconv.FormatBool(vy.nullable))
				}
				rc.Detail = strings.Join(det, ", ")
				kc.Rules = append(kc.Rules, rc)
			}
		}
		for _, k := range oy {
			if _, ok := mx[k]; ok {
				continue
			}
			vy := my[k]
			typ, path := splitKey(k)
			kc.Rules = append(kc.Rules, RuleChange{Change: tree.Added, Type: typ, Path: path, When: vy.when, To: vy.value})
		}
		markUnknown(a, b, &kc)
		if len(kc.Rules) > 0 || kc.Change != tree.Changed {
			d.Kinds = append(d.Kinds, kc)
		}
	}
	return d
}

// markUnknown marks the mutations of kc that one release has and the
// other may have too: its webhook for the kind was not learned.
func markUnknown(a, b *operators.Resolution, kc *KindChange) {
	ua := a.UnknownWebhook(kc.APIVersion, kc.Kind) != ""
	ub := b.UnknownWebhook(kc.APIVersion, kc.Kind) != ""
	for i := range kc.Rules {
		r := &kc.Rules[i]
		if !strings.HasPrefix(r.Type, "mutation") {
			continue
		}
		switch {
		case r.Change == tree.Removed && ub:
			r.Unknown = NewRelease(b).String()
		case r.Change == tree.Added && ua:
			r.Unknown = NewRelease(a).String()
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(any)"
	}
	return s
}

func splitKey(k string) (typ, path string) {
	parts := strings.Split(k, "\x00")
	if len(parts) > 3 {
		return parts[0] + " (" + parts[3] + ")", parts[1]
	}
	return parts[0], parts[1]
}

// FieldChange is one field that differs between two filled objects.
type FieldChange struct {
	Change string `json:"change"` // appears, disappears, changes or unknown
	Path   string `json:"path"`
	From   any    `json:"from,omitempty"`
	To     any    `json:"to,omitempty"`
	// Unknown names the release that fills no value here because its
	// webhook defaults were not learned (Change unknown).
	Unknown string `json:"unknown,omitempty"`
}

// ObjectDiff is what changes in one object.
type ObjectDiff struct {
	Object   string        `json:"object"`
	Source   string        `json:"source"`
	Document int           `json:"document"`
	Line     int           `json:"line"`
	Changes  []FieldChange `json:"changes"`
	index    int           // of the object among those compared
}

// Objects compares the same objects filled two ways, pairwise. Only
// objects that differ are returned.
func Objects(a, b []manifest.Object) []ObjectDiff {
	out := []ObjectDiff{}
	for i := range a {
		if i >= len(b) {
			break
		}
		var ch []FieldChange
		for _, c := range tree.Diff(a[i].Data, b[i].Data) {
			ch = append(ch, FieldChange{Change: fieldVerbs[c.Kind], Path: c.Path.String(), From: c.From, To: c.To})
		}
		if len(ch) == 0 {
			continue
		}
		out = append(out, ObjectDiff{Object: a[i].ID(), Source: a[i].Source, Document: a[i].Doc, Line: a[i].Line, Changes: ch, index: i})
	}
	return out
}
