package learn

import (
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// OverrideOf is the release that 'profiles learn --as NAME@VERSION'
// overrides when the profiles know NAME: the learned profile then replaces
// that release (a user profile of the same operator and version replaces
// the shipped one), so it holds the release's CRD schema defaults and
// everything this cluster's admission adds beyond them, and it is learned
// with those defaults filled first, not the release's mutations. nil when
// NAME is no operator release of st (unknown, or a profile of learned
// mutations only): the profile is selected next to the releases.
// refs are the selected releases (--operator); one of the same operator must
// be this release.
func OverrideOf(st *operators.Store, name, version string, refs []string) (*operators.Resolution, error) {
	as := name + "@" + strings.TrimPrefix(version, "v")
	if !isRelease(st, name) {
		// A profile of mutations only, learned before: learned again
		// under its name, it must not fill first.
		for _, ref := range refs {
			if n, _, err := operators.ParseRef(ref); err == nil && n == name {
				return nil, fmt.Errorf("--as %s names the selected %s, a profile of mutations only: learn it again without selecting it (its mutations would fill first and be left out), or under another name", as, ref)
			}
		}
		return nil, nil
	}
	r, err := st.Resolve(name, version, true)
	if err != nil {
		why, _, _ := strings.Cut(err.Error(), "; ")
		return nil, fmt.Errorf("--as %s names a release of %s to override, but no profile holds for it (%s). An override keeps the CRD schema defaults of the release: name a checked one ('cmp-defaults profiles show %s' lists them), or extract your cluster's CRDs first ('cmp-defaults profiles extract --from-cluster --group GROUP --operator %s --write DIR', then --profiles-dir DIR); or learn under a name of your own (--as my-%s) to select the profile next to the release",
			as, name, why, name, as, as)
	}
	for _, ref := range refs {
		n, v, err := operators.ParseRef(ref)
		if err == nil && n == name && v != r.Requested {
			return nil, fmt.Errorf("--as %s overrides %s, but --operator selects %s: learn the release the cluster runs, and select no other release of it", as, as, n+"@"+strings.TrimPrefix(v, "v"))
		}
	}
	return r, nil
}

// isRelease says whether name is an operator whose releases st holds:
// shipped, or a profile with CRD schema defaults (extracted from CRDs);
// not a name of learned mutations only.
func isRelease(st *operators.Store, name string) bool {
	profs, err := st.Profiles(name)
	if err != nil {
		return false
	}
	for _, p := range profs {
		if p.Source == operators.Shipped {
			return true
		}
		for _, r := range p.Resources {
			if len(r.Defaults) > 0 || len(r.ReadDefaults) > 0 {
				return true
			}
		}
	}
	return false
}

// overrides names the release p overrides and the file of its CRD schema
// defaults; a profile that overrides one already names it.
func overrides(base *operators.Resolution) string {
	p := base.Profile
	if p.Learned != nil && p.Learned.Overrides != "" {
		return p.Learned.Overrides
	}
	where := p.File
	if p.Source == operators.Shipped {
		where = "shipped " + p.File
	}
	return fmt.Sprintf("%s (%s)", base.Operator+"@"+strings.TrimPrefix(base.Requested, "v"), where)
}

// OverrideProfile is the profile that replaces the release base: its CRD
// schema defaults (maps, webhooks, channel and provenance of its CRDs too),
// and the learned rules as its mutations, in place of the release's.
func OverrideProfile(base *operators.Resolution, res *Result, prov operators.Learned) *operators.Profile {
	b := base.Profile.WithoutMutations()
	p := Profile(base.Operator, base.Requested, res, prov)
	ctx := ""
	if prov.Context != "" {
		ctx = " (context " + prov.Context + ")"
	}
	p.Description = fmt.Sprintf("%s@%s as the cluster at %s%s runs it: the CRD schema defaults of %s and the mutating-admission defaults learned by 'cmp-defaults profiles learn' from server-side dry runs of %d object(s), in place of the release's. In a profiles directory it replaces the shipped profile of this release.",
		base.Operator, strings.TrimPrefix(base.Requested, "v"), prov.Cluster, ctx, prov.Overrides, prov.Objects)
	p.Channel, p.Provenance = b.Channel, b.Provenance
	learned := p.Resources
	p.Resources = b.Resources
	for _, l := range learned {
		i := resourceIndex(p.Resources, l)
		if i < 0 {
			p.Resources = append(p.Resources, operators.Resource{Group: l.Group, Version: l.Version, Kind: l.Kind})
			i = len(p.Resources) - 1
		}
		p.Resources[i].Mutations = l.Mutations
		p.Resources[i].Rewrites = l.Rewrites
	}
	operators.SortResources(p.Resources)
	return p
}

func resourceIndex(rs []operators.Resource, r operators.Resource) int {
	for i := range rs {
		if rs[i].Group == r.Group && rs[i].Version == r.Version && rs[i].Kind == r.Kind {
			return i
		}
	}
	return -1
}

// ofRelease says whether objects of apiVersion belong to the overridden
// release: an API group of its profile. An override holds only them.
func ofRelease(base *operators.Resolution, apiVersion string) bool {
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return false
	}
	for _, r := range base.Profile.Resources {
		if r.Group == group {
			return true
		}
	}
	return false
}

// notRelearned lists the fields the release's own mutations fill that no
// learned rule fills (kind and path): the override leaves them out, so a
// reader can tell missing inputs from a webhook that no longer adds them.
func notRelearned(base *operators.Resolution, rules []Rule) []string {
	learned := map[string]bool{}
	for _, r := range rules {
		learned[r.APIVersion+" "+r.Kind+" "+r.Path] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, rs := range base.Profile.Resources {
		for _, m := range rs.Mutations {
			k := rs.APIVersion() + " " + rs.Kind + " " + m.Path
			if !learned[k] && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
