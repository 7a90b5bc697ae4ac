package operators

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Unserved says whether objects of apiVersion and kind are served by the
// resolved release, judged by the profiles: an object of one of the
// release's API groups whose kind the release has under other versions
// only, or whose CRD the release does not ship at all (its provenance
// names no file of that kind), is rejected by the API server. The warning
// names the release of this operator, or another operator sharing the
// group (Gateway API's other channel), that serves it. It returns "" when
// the release serves it or the profiles cannot tell: profiles list only
// versions with defaults, so a kind missing from a profile without
// provenance says nothing. Other releases' profiles are read only here,
// for objects that need the hint.
func (r *Resolution) Unserved(st *Store, apiVersion, kind string) string {
	if r == nil || r.Profile == nil || st == nil {
		return ""
	}
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return "" // the core group belongs to no operator
	}
	ours, other := false, false
	for _, rs := range r.Profile.Resources {
		if rs.Kind == kind && rs.APIVersion() == apiVersion {
			return ""
		}
		ours = ours || rs.Group == group
		other = other || rs.Group == group && rs.Kind == kind
	}
	if !ours {
		return ""
	}
	if !other && !r.Profile.lacksCRD(kind) {
		return st.misspelt(r, group, apiVersion, kind)
	}
	ref := r.Operator + "@" + strings.TrimPrefix(r.Requested, "v")
	first, last, dropped := st.servedBy(r.Operator, apiVersion, kind, r.Requested)
	switch {
	case dropped != "":
		return fmt.Sprintf("%s does not serve %s %s: %s stopped serving it (last served in %s), so the API server will reject these objects; move them to a served version", ref, apiVersion, kind, r.Operator+"@"+strings.TrimPrefix(dropped, "v"), strings.TrimPrefix(last, "v"))
	case first != "":
		return fmt.Sprintf("%s does not serve %s %s yet: %s is the first release that does, so the API server will reject these objects", ref, apiVersion, kind, r.Operator+"@"+strings.TrimPrefix(first, "v"))
	}
	if by := st.otherServer(r, group, apiVersion, kind); by != "" {
		return fmt.Sprintf("%s%s does not serve %s %s; %s does: select the operator release your cluster runs, or the API server will reject these objects", ref, channelOf(r.Profile), apiVersion, kind, by)
	}
	// A shipped profile has every served version of the kind that has
	// defaults; a user's may list only some.
	if other && r.Profile.Source == Shipped {
		return fmt.Sprintf("no checked release of %s serves %s %s (%s serves %s), so the API server will reject these objects; use a served apiVersion",
			r.Operator, apiVersion, kind, ref, strings.Join(r.Profile.versionsOf(group, kind), ", "))
	}
	return st.misspelt(r, group, apiVersion, kind)
}

// misspelt says that kind is no kind of group in any checked release of
// r's operator but one letter away from one that is (a typo, a plural):
// the API server will reject it. Other unknown kinds say nothing, since a
// kind without defaults is in no profile.
func (s *Store) misspelt(r *Resolution, group, apiVersion, kind string) string {
	profs, err := s.Profiles(r.Operator)
	if err != nil {
		return ""
	}
	seen := map[string]bool{}
	var near []string
	for _, p := range profs {
		for _, rs := range p.Resources {
			if rs.Group != group || seen[rs.Kind] {
				continue
			}
			seen[rs.Kind] = true
			if editDistance(strings.ToLower(kind), strings.ToLower(rs.Kind)) <= 1 {
				near = append(near, rs.Kind)
			}
		}
	}
	if len(near) == 0 || seen[kind] {
		return ""
	}
	ref := r.Operator + "@" + strings.TrimPrefix(r.Requested, "v")
	return fmt.Sprintf("%s has no kind %s in %s (did you mean %s?), so the API server will reject these objects", ref, kind, apiVersion, strings.Join(near, " or "))
}

// versionsOf lists the apiVersions under which the profile has kind.
func (p *Profile) versionsOf(group, kind string) []string {
	var out []string
	for _, rs := range p.Resources {
		if rs.Group == group && rs.Kind == kind {
			out = append(out, rs.APIVersion())
		}
	}
	if len(out) == 0 {
		return []string{"no version of it"}
	}
	return out
}

// HasKind says whether the profile has kind of group, in any version.
func (p *Profile) HasKind(group, kind string) bool {
	return slices.ContainsFunc(p.Resources, func(rs Resource) bool { return rs.Group == group && rs.Kind == kind })
}

// CoveringKind lists the operators whose newest profile has kind of group:
// for an object of that kind when none of them is selected. An optional
// webhook's profiles (mutations only) are left out: the operator they go
// with is the one to select first.
func (s *Store) CoveringKind(group, kind string) []string {
	return s.covering(func(p *Profile) bool { return p.HasKind(group, kind) && !p.MutationsOnly() })
}

// MutationsOnly says that the profile has no schema defaults, only the
// kinds a webhook matches and what it writes: an optional webhook's, or a
// cluster's learned admission, selected next to an operator's release.
func (p *Profile) MutationsOnly() bool {
	for _, rs := range p.Resources {
		if len(rs.Defaults) > 0 || len(rs.ReadDefaults) > 0 {
			return false
		}
	}
	return len(p.Resources) > 0
}

func (s *Store) covering(has func(*Profile) bool) []string {
	var out []string
	for _, name := range s.Operators() {
		rels, err := s.Releases(name)
		if err != nil || len(rels) == 0 {
			continue
		}
		if newest, err := s.Resolve(name, rels[len(rels)-1].Version, false); err == nil && has(newest.Profile) {
			out = append(out, name)
		}
	}
	return out
}

func channelOf(p *Profile) string {
	if p == nil || p.Channel == "" {
		return ""
	}
	return " (" + p.Channel + " channel)"
}

// lacksCRD says that the profile's provenance names every CRD file read
// and none is of kind (file names hold the lower-case plural).
func (p *Profile) lacksCRD(kind string) bool {
	if p.Provenance == nil || len(p.Provenance.Files) == 0 {
		return false
	}
	k := strings.ToLower(kind)
	for _, f := range p.Provenance.Files {
		if strings.Contains(strings.ToLower(path.Base(f.Path)), k) {
			return false
		}
	}
	return true
}

// servedBy compares version with the checked releases of op whose profile
// has apiVersion and kind: the last one at or below version and the first
// after it that no longer does (dropped), or the first one above version.
func (s *Store) servedBy(op, apiVersion, kind, version string) (first, last, dropped string) {
	rels, has := s.serving(op, apiVersion, kind)
	for _, rel := range rels {
		in := has[rel.Profile]
		switch c := CompareVersions(rel.Version, version); {
		case c <= 0 && in:
			last, dropped = rel.Version, ""
		case c <= 0 && last != "" && dropped == "":
			dropped = rel.Version
		case c > 0 && in && first == "":
			first = rel.Version
		}
	}
	if dropped == "" {
		last = ""
	}
	return first, last, dropped
}

// serving is op's checked releases and the profile versions that have
// apiVersion and kind.
func (s *Store) serving(op, apiVersion, kind string) ([]Release, map[string]bool) {
	rels, err := s.Releases(op)
	if err != nil {
		return nil, nil
	}
	has := map[string]bool{}
	if profs, err := s.Profiles(op); err == nil {
		for _, p := range profs {
			for _, rs := range p.Resources {
				if rs.Kind == kind && rs.APIVersion() == apiVersion {
					has[p.Version] = true
				}
			}
		}
	}
	return rels, has
}

// otherServer names another operator of the group that serves apiVersion
// and kind: at the requested version when it checked that release, else
// the range of its releases that do. Only operators whose newest profile
// has the group are read in full.
func (s *Store) otherServer(r *Resolution, group, apiVersion, kind string) string {
	for _, name := range s.Operators() {
		if name == r.Operator {
			continue
		}
		rels, err := s.Releases(name)
		if err != nil || len(rels) == 0 {
			continue
		}
		newest, err := s.Resolve(name, rels[len(rels)-1].Version, false)
		if err != nil || !newest.Profile.hasGroup(group) {
			continue
		}
		_, has := s.serving(name, apiVersion, kind)
		var from, to string
		for _, rel := range rels {
			if !has[rel.Profile] {
				continue
			}
			if CompareVersions(rel.Version, r.Requested) == 0 {
				return name + "@" + strings.TrimPrefix(rel.Version, "v") + channelOf(newest.Profile)
			}
			if from == "" {
				from = rel.Version
			}
			to = rel.Version
		}
		if from != "" {
			return fmt.Sprintf("%s%s from %s to %s", name, channelOf(newest.Profile), strings.TrimPrefix(from, "v"), strings.TrimPrefix(to, "v"))
		}
	}
	return ""
}

func (p *Profile) hasGroup(group string) bool {
	for _, rs := range p.Resources {
		if rs.Group == group {
			return true
		}
	}
	return false
}
