package operators

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/mod/semver"
)

// Operators lists operator names, sorted.
func (s *Store) Operators() []string {
	var out []string
	for n := range s.ops {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Summary describes one operator for `profiles list`.
type Summary struct {
	Operator string   `json:"operator"`
	Oldest   string   `json:"oldest"`
	Newest   string   `json:"newest"`
	Releases int      `json:"releasesChecked"`
	Profiles []string `json:"profiles"`
	Sources  []string `json:"sources"`
	// InForce maps each profile version to the source whose file is used.
	InForce map[string]string `json:"inForce"`
}

// Summaries describes every operator.
func (s *Store) Summaries() ([]Summary, error) {
	var out []Summary
	for _, name := range s.Operators() {
		o := s.ops[name]
		if err := o.index(); err != nil {
			return nil, err
		}
		rel := o.checked()
		sm := Summary{Operator: name, Releases: len(rel), InForce: map[string]string{}}
		if len(rel) > 0 {
			sm.Oldest, sm.Newest = rel[0], rel[len(rel)-1]
		}
		for _, v := range o.profileVersions() {
			sm.Profiles = append(sm.Profiles, v)
			sm.InForce[v] = o.profiles[v].source
		}
		for src := range o.sources {
			sm.Sources = append(sm.Sources, src)
		}
		sort.Strings(sm.Sources)
		out = append(out, sm)
	}
	return out, nil
}

// checked is every release known for the operator: indexed ones and every
// profile version, sorted.
func (o *operator) checked() []string {
	set := map[string]bool{}
	for v := range o.releases {
		set[v] = true
	}
	for v := range o.profiles {
		set[v] = true
	}
	return sortedVersions(set)
}

func (o *operator) profileVersions() []string {
	set := map[string]bool{}
	for v := range o.profiles {
		set[v] = true
	}
	return sortedVersions(set)
}

func sortedVersions(set map[string]bool) []string {
	var out []string
	for v := range set {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return CompareVersions(out[i], out[j]) < 0 })
	return out
}

// Resolution is the profile chosen for a requested operator release.
type Resolution struct {
	Operator  string   // operator name
	Requested string   // canonical requested version
	Profile   *Profile // the profile in force
	Warning   string   // set when the release was not checked
	// Webhooks is what is known of the release's webhook defaults
	// (WebhookLearned, WebhookNone, WebhookUnknown; "" reads as none),
	// LearnedFrom where they were learned.
	Webhooks, LearnedFrom string
}

// Ref is "operator@version" as written on the command line.
func (r Resolution) Ref() string { return r.Operator + "@" + r.Requested }

// ResolveError says why a release could not be resolved. Messages name no
// flag or variable: callers add how the user changes the setting.
type ResolveError struct {
	Msg     string
	Unknown bool // the operator has no profiles here
	Strict  bool // refused only because strict mode is on
}

func (e *ResolveError) Error() string { return e.Msg }

// ParseRef splits "name@version".
func ParseRef(ref string) (name, version string, err error) {
	name, version, ok := strings.Cut(strings.TrimSpace(ref), "@")
	if !ok || name == "" || version == "" {
		return "", "", fmt.Errorf("operator %q: write NAME@VERSION, e.g. external-secrets@2.5.0%s", ref, listHint(name))
	}
	v, err := CanonicalVersion(version)
	if err != nil {
		return "", "", fmt.Errorf("operator %q: %v", ref, err)
	}
	return name, v, nil
}

// Resolve finds the profile for an operator release: the newest profile at
// or below it. A patch release newer than every checked one, or one that
// was not checked, is a warning (an error when strict); a newer minor or
// major is an error.
func (s *Store) Resolve(name, version string, strict bool) (*Resolution, error) {
	o := s.ops[name]
	if o == nil {
		return nil, s.unknownError(name)
	}
	v, err := CanonicalVersion(version)
	if err != nil {
		return nil, &ResolveError{Msg: fmt.Sprintf("%s: %v", name, err)}
	}
	if err := o.index(); err != nil {
		return nil, err
	}
	rel := o.checked()
	profs := o.profileVersions()
	if len(profs) == 0 {
		return nil, &ResolveError{Msg: fmt.Sprintf("operator %s has no profiles", name)}
	}
	var chosen string
	for _, pv := range profs {
		if CompareVersions(pv, v) <= 0 {
			chosen = pv
		}
	}
	if chosen == "" {
		return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is older than the oldest known release %s; known releases: %s to %s%s; "+
			"select one of those ('cmp-defaults profiles show %s' lists them), or make a profile of %s's CRDs with 'cmp-defaults profiles extract --operator %s@%s CRD.yaml... --write DIR' and add DIR to the profiles directories",
			name, strings.TrimPrefix(v, "v"), rel[0], rel[0], rel[len(rel)-1], chartHint(name, v), name, strings.TrimPrefix(v, "v"), name, strings.TrimPrefix(v, "v"))}
	}
	res := &Resolution{Operator: name, Requested: v}
	if _, ok := o.releases[v]; !ok && o.profiles[v] == nil {
		newest := rel[len(rel)-1]
		switch {
		case CompareVersions(v, newest) > 0 && semver.MajorMinor(v) != semver.MajorMinor(newest):
			// A new minor or major may change the CRDs: no profile is known
			// to hold, and under Argo CD a warning is never seen.
			return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is newer than every checked release and not a patch of the newest, %s, whose profile may not hold for it%s; pin a checked release (known: %s to %s), or make a profile of its CRDs with 'cmp-defaults profiles extract'", name, strings.TrimPrefix(v, "v"), newest, chartHint(name, v), rel[0], newest)}
		case CompareVersions(v, newest) > 0:
			res.Warning = fmt.Sprintf("%s@%s is newer than every checked release (newest: %s); using the profile of %s (a patch release seldom changes CRDs). Check them with 'cmp-defaults profiles extract' or pin a checked release", name, strings.TrimPrefix(v, "v"), newest, chosen)
			if strict {
				return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is newer than every checked release (newest: %s), so no profile is known to hold for it; pin a checked release, or make a profile of its CRDs with 'cmp-defaults profiles extract'", name, strings.TrimPrefix(v, "v"), newest), Strict: true}
			}
		default:
			res.Warning = fmt.Sprintf("%s@%s is not a checked release; using the profile of %s, the newest at or below it. 'cmp-defaults profiles show %s' lists checked releases", name, strings.TrimPrefix(v, "v"), chosen, name)
			if strict {
				return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is not a checked release, so no profile is known to hold for it; pin a checked release ('cmp-defaults profiles show %s' lists them)", name, strings.TrimPrefix(v, "v"), name), Strict: true}
			}
		}
	}
	p, err := o.profiles[chosen].load()
	if err != nil {
		return nil, err
	}
	res.Profile = p
	var mutations string // the index's word on the newest checked release at or below v
	for _, c := range rel {
		if CompareVersions(c, v) <= 0 {
			mutations = o.releases[c].Mutations
		}
	}
	res.Webhooks, res.LearnedFrom = WebhookState(p, mutations)
	return res, nil
}

// Releases lists the checked releases of an operator with the profile in
// force for each.
func (s *Store) Releases(name string) ([]Release, error) {
	o := s.ops[name]
	if o == nil {
		return nil, s.unknownError(name)
	}
	if err := o.index(); err != nil {
		return nil, err
	}
	profs := o.profileVersions()
	var out []Release
	for _, v := range o.checked() {
		r := o.releases[v]
		r.Version = v
		r.Profile = ""
		for _, pv := range profs {
			if CompareVersions(pv, v) <= 0 {
				r.Profile = pv
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// IndexSource is the upstream source the first index of an operator names.
func (s *Store) IndexSource(name string) string {
	if o := s.ops[name]; o != nil && o.index() == nil && len(o.indexes) > 0 {
		return o.indexes[0].Source
	}
	return ""
}

// Webhooks are the mutating webhooks the first index of an operator
// records (see Index.Webhooks).
func (s *Store) Webhooks(name string) []Webhook {
	if o := s.ops[name]; o != nil && o.index() == nil && len(o.indexes) > 0 {
		return o.indexes[0].Webhooks
	}
	return nil
}

// ProfileFile names where the profile of a version comes from.
func (s *Store) ProfileFile(name, version string) (file, source string) {
	if o := s.ops[name]; o != nil {
		if r := o.profiles[version]; r != nil {
			return r.display(), r.source
		}
	}
	return "", ""
}

// Profiles loads every profile of an operator (for lint and tests).
func (s *Store) Profiles(name string) ([]*Profile, error) {
	o := s.ops[name]
	if o == nil {
		return nil, &ResolveError{Msg: fmt.Sprintf("unknown operator %q", name)}
	}
	if err := o.index(); err != nil {
		return nil, err
	}
	var out []*Profile
	for _, v := range o.profileVersions() {
		p, err := o.profiles[v].load()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
