package operators

import (
	"fmt"
	"strings"
)

// Unserved says whether objects of apiVersion and kind are served by the
// resolved release, judged by the operator's own profiles: a kind that the
// release's profile has under other versions only, while the profiles of
// other checked releases have this version, was dropped (or not yet added)
// by this release, and the API server rejects such objects. It returns the warning, or "" when the
// release serves it or the profiles cannot tell.
func (r *Resolution) Unserved(st *Store, apiVersion, kind string) string {
	if r == nil || r.Profile == nil || st == nil {
		return ""
	}
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		return "" // the core group belongs to no operator
	}
	// Profiles list only versions with defaults: a kind missing altogether
	// may just have none in this release. Only a kind present under another
	// version of the group tells that this version is not served.
	other := false
	for _, rs := range r.Profile.Resources {
		if rs.Kind == kind && rs.APIVersion() == apiVersion {
			return ""
		}
		if rs.Group == group && rs.Kind == kind {
			other = true
		}
	}
	if !other {
		return ""
	}
	rels, err := st.Releases(r.Operator)
	if err != nil {
		return ""
	}
	has := map[string]bool{}
	if profs, err := st.Profiles(r.Operator); err == nil {
		for _, p := range profs {
			for _, rs := range p.Resources {
				if rs.Kind == kind && rs.APIVersion() == apiVersion {
					has[p.Version] = true
				}
			}
		}
	}
	var last, dropped, first string
	for _, rel := range rels {
		in := has[rel.Profile]
		switch c := CompareVersions(rel.Version, r.Requested); {
		case c <= 0 && in:
			last, dropped = rel.Version, ""
		case c <= 0 && last != "" && dropped == "":
			dropped = rel.Version
		case c > 0 && in && first == "":
			first = rel.Version
		}
	}
	ref := r.Operator + "@" + strings.TrimPrefix(r.Requested, "v")
	switch {
	case dropped != "":
		return fmt.Sprintf("%s does not serve %s %s: %s stopped serving it (last served in %s), so the API server will reject these objects; move them to a served version", ref, apiVersion, kind, r.Operator+"@"+strings.TrimPrefix(dropped, "v"), strings.TrimPrefix(last, "v"))
	case first != "":
		return fmt.Sprintf("%s does not serve %s %s yet: %s is the first release that does, so the API server will reject these objects", ref, apiVersion, kind, r.Operator+"@"+strings.TrimPrefix(first, "v"))
	}
	return ""
}
