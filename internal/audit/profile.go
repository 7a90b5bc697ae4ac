package audit

import (
	"strings"

	"github.com/itchyny/gojq"
	"golang.org/x/mod/semver"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Defaults knows the CRD schema default paths of the selected profiles, to
// tell a field the profiles would fill (were its parent present) from one
// no admission default writes.
type Defaults struct {
	kinds    map[string][]pattern // "apiVersion kind"
	webhooks map[string]string    // "group kind": the operator's mutating webhook that matches it
	groups   map[string]bool      // the API groups of the selected profiles' resources
	hist     *History
	ops      []string // selected operators, for history
	res      []*operators.Resolution
}

type pattern struct {
	segs []tree.Seg
	maps map[int]bool // indexes of [] steps that iterate map values
	rule string
	by   *By
}

// NewDefaults indexes the default paths of resolved profiles.
func NewDefaults(res []*operators.Resolution) *Defaults {
	d := &Defaults{kinds: map[string][]pattern{}, webhooks: map[string]string{}, groups: map[string]bool{}}
	for _, r := range res {
		if r == nil || r.Profile == nil {
			continue
		}
		d.ops, d.res = append(d.ops, r.Operator), append(d.res, r)
		by := fieldBy(r.Operator, r.Requested, r.Profile.Version)
		for _, rs := range r.Profile.Resources {
			maps := map[string]bool{}
			for _, m := range rs.Maps {
				maps[m] = true
			}
			key := rs.APIVersion() + " " + rs.Kind
			d.groups[rs.Group] = true
			if rs.Webhook != "" {
				d.webhooks[rs.Group+" "+rs.Kind] = rs.Webhook + " (" + by.String() + ")"
			}
			for _, df := range rs.FilledDefaults() {
				segs, err := tree.ParsePath(df.Path)
				if err != nil {
					continue // profiles are validated on load
				}
				p := pattern{segs: segs, maps: map[int]bool{}, rule: df.Path, by: by}
				for j, s := range segs {
					if s.Iter && maps[tree.FormatPath(segs[:j])] {
						p.maps[j] = true
					}
				}
				d.kinds[key] = append(d.kinds[key], p)
			}
			// A mutation names its field through a jq expression that
			// may pick items with select(...): its skeleton without the
			// filters covers every item it could apply to.
			for _, m := range rs.Mutations {
				sk, ok := skeleton(m.Path)
				if !ok {
					continue
				}
				segs, err := tree.ParsePath(sk)
				if err != nil {
					continue
				}
				d.kinds[key] = append(d.kinds[key], pattern{segs: segs, maps: map[int]bool{}, rule: m.Path, by: by})
			}
		}
	}
	return d
}

// skeleton drops the select(...) steps of a jq path expression:
// `.spec.items[] | select(.kind == "x") | .weight` becomes
// `.spec.items[].weight`.
func skeleton(expr string) (string, bool) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return "", false
	}
	var walk func(q *gojq.Query) (string, bool)
	walk = func(q *gojq.Query) (string, bool) {
		if q.Op == gojq.OpPipe {
			l, ok := walk(q.Left)
			if !ok {
				return "", false
			}
			r, ok := walk(q.Right)
			return l + r, ok
		}
		if q.Op != 0 || q.Term == nil {
			return "", false
		}
		if q.Term.Type == gojq.TermTypeFunc && q.Term.Func.Name == "select" {
			return "", true
		}
		return q.String(), true
	}
	s, ok := walk(q)
	return s, ok && s != ""
}

// By is where a filled field comes from: the operator release asked for
// and the profile in force, versions as explain -o json writes them
// (v1.30.0). Text output prints it as prose (String).
type By struct {
	Operator string `json:"operator"`
	Release  string `json:"release"`
	Profile  string `json:"profile"`
}

func (b *By) String() string {
	if b == nil {
		return ""
	}
	return b.Operator + "@" + strings.TrimPrefix(b.Release, "v") + ", profile " + b.Profile
}

// fieldBy names where a filled field comes from.
func fieldBy(op, release, profile string) *By {
	return &By{Operator: op, Release: release, Profile: profile}
}

// Match finds the default rule whose path covers the concrete path p in an
// object of the given apiVersion and kind.
func (d *Defaults) Match(apiVersion, kind string, p tree.Path) (rule string, by *By, ok bool) {
	if d == nil {
		return "", nil, false
	}
	for _, pt := range d.kinds[apiVersion+" "+kind] {
		if pt.match(p) {
			return pt.rule, pt.by, true
		}
	}
	return "", nil, false
}

func (pt pattern) match(p tree.Path) bool {
	if len(p) != len(pt.segs) {
		return false
	}
	for i, s := range pt.segs {
		switch v := p[i].(type) {
		case int:
			if !s.Iter {
				return false
			}
		case string:
			switch {
			case !s.Iter:
				if v != s.Name {
					return false
				}
			case pt.maps[i]:
			default: // a list index written as a JSON pointer token
				if v == "" || strings.Trim(v, "0123456789") != "" {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// MatchPattern finds the default rule with exactly the path segs (a jq
// path such as .spec.data[].remoteRef.nullBytePolicy).
func (d *Defaults) MatchPattern(apiVersion, kind string, segs []tree.Seg) (rule string, by *By, ok bool) {
	if d == nil {
		return "", nil, false
	}
	want := tree.FormatPath(segs)
	for _, pt := range d.kinds[apiVersion+" "+kind] {
		if tree.FormatPath(pt.segs) == want {
			return pt.rule, pt.by, true
		}
	}
	return "", nil, false
}

// History knows every checked release of the operators in a store, to say
// in which releases a field was an admission default.
type History struct {
	st    *operators.Store
	cache map[string][]releaseDefaults // by operator
}

type releaseDefaults struct {
	version string
	defs    *Defaults
	// unknown: the release's webhook defaults were not learned, so a
	// field it lacks may still be one of its admission defaults.
	unknown bool
}

// NewHistory reads releases and profiles from st on first use.
func NewHistory(st *operators.Store) *History {
	return &History{st: st, cache: map[string][]releaseDefaults{}}
}

func (h *History) releases(op string) []releaseDefaults {
	if rd, ok := h.cache[op]; ok {
		return rd
	}
	var out []releaseDefaults
	rels, err := h.st.Releases(op)
	profs, perr := h.st.Profiles(op)
	if err == nil && perr == nil {
		byVersion := map[string]*operators.Profile{}
		defs := map[string]*Defaults{}
		for _, p := range profs {
			byVersion[p.Version] = p
			defs[p.Version] = NewDefaults([]*operators.Resolution{{Operator: op, Requested: p.Version, Profile: p}})
		}
		for _, r := range rels {
			if d := defs[r.Profile]; d != nil {
				state, _ := operators.WebhookState(byVersion[r.Profile], r.Mutations)
				out = append(out, releaseDefaults{version: r.Version, defs: d, unknown: state == operators.WebhookUnknown})
			}
		}
	}
	h.cache[op] = out
	return out
}

// history names the release ranges of the selected operators in which the
// concrete path p was a default, e.g. "2.3.0–2.6.x"; "" when none.
func (d *Defaults) history(apiVersion, kind string, p tree.Path) string {
	if d == nil || d.hist == nil {
		return ""
	}
	var ranges []string
	for _, op := range d.ops {
		rels := d.hist.releases(op)
		for i := 0; i < len(rels); i++ {
			if _, _, ok := rels[i].defs.Match(apiVersion, kind, p); !ok {
				continue
			}
			// A release whose webhook defaults are unknown does not end a
			// range: it may well have the default too.
			j, unknown := i, false
			for k := i + 1; k < len(rels); k++ {
				if _, _, ok := rels[k].defs.Match(apiVersion, kind, p); ok {
					j = k
					continue
				}
				if !rels[k].unknown {
					break
				}
			}
			for k := i; k <= j; k++ {
				unknown = unknown || rels[k].unknown
			}
			r := releaseRange(rels, i, j)
			if unknown {
				r += " (where its webhook defaults are known)"
			}
			ranges = append(ranges, r)
			i = j
		}
	}
	return strings.Join(ranges, ", ")
}

// releaseRange writes releases i..j: the last as "2.6.x" when the next
// checked release starts another minor version.
func releaseRange(rels []releaseDefaults, i, j int) string {
	first := strings.TrimPrefix(rels[i].version, "v")
	last := strings.TrimPrefix(rels[j].version, "v")
	if j+1 < len(rels) && semver.MajorMinor(rels[j].version) != semver.MajorMinor(rels[j+1].version) {
		last = strings.TrimPrefix(semver.MajorMinor(rels[j].version), "v") + ".x"
	}
	if first == last {
		return first
	}
	return first + "–" + last
}

// webhook names the selected operator's mutating webhook that matches the
// kind, with its release, or "" for none known.
func (d *Defaults) webhook(group, kind string) string {
	if d == nil {
		return ""
	}
	return d.webhooks[group+" "+kind]
}

// unknownWebhook names the selected release whose webhook matches group
// and kind and writes defaults that were not learned for that release
// ("" when there is none).
func (d *Defaults) unknownWebhook(group, kind string) string {
	if d == nil {
		return ""
	}
	for _, r := range d.res {
		for _, rs := range r.Profile.Resources {
			if rs.Group == group && rs.Kind == kind && r.UnknownWebhook(rs.APIVersion(), rs.Kind) != "" {
				return r.Operator + "@" + strings.TrimPrefix(r.Requested, "v") + "'s webhook " + rs.Webhook
			}
		}
	}
	return ""
}

// covers says whether the group is one of the selected operators' (in
// the selected releases or, with a history, in any of their releases):
// the only kinds whose admission defaults cmp-defaults knows.
func (d *Defaults) covers(group string) bool {
	if d == nil {
		return false
	}
	if d.groups[group] {
		return true
	}
	for _, op := range d.ops {
		if d.hist == nil {
			break
		}
		for _, r := range d.hist.releases(op) {
			if r.defs.groups[group] {
				return true
			}
		}
	}
	return false
}
