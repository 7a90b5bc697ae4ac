package pipeline

import (
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Unserved warns once per apiVersion and kind that a selected release
// does not serve while other checked releases of the operator do: the API
// server rejects such objects.
type Unserved struct {
	seen map[string]bool
}

// Check returns the warnings about objs not yet given.
func (u *Unserved) Check(st *operators.Store, res []*operators.Resolution, objs []manifest.Object) []string {
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	var out []string
	for _, ob := range objs {
		av, _ := ob.Data["apiVersion"].(string)
		k, _ := ob.Data["kind"].(string)
		if u.seen[av+" "+k] {
			continue
		}
		u.seen[av+" "+k] = true
		for _, r := range res {
			if msg := r.Unserved(st, av, k); msg != "" {
				out = append(out, fmt.Sprintf("%s: %s", ob.Where(), msg))
			}
		}
	}
	return out
}

// UnservedKinds compares the selected profiles with the API versions the
// cluster serves (KUBE_API_VERSIONS): a kind the cluster does not serve
// hints at the wrong operator release.
func UnservedKinds(res []*operators.Resolution, apiVersions []string) []string {
	if len(apiVersions) == 0 {
		return nil
	}
	served := map[string]bool{}
	for _, v := range apiVersions {
		served[v] = true
	}
	var out []string
	for _, r := range res {
		var missing []string
		for _, rs := range r.Profile.Resources {
			if !served[rs.APIVersion()] && !served[rs.APIVersion()+"/"+rs.Kind] {
				missing = append(missing, rs.APIVersion()+" "+rs.Kind)
			}
		}
		if len(missing) > 0 && len(missing) == len(r.Profile.Resources) {
			out = append(out, fmt.Sprintf("the cluster serves none of the kinds of %s (KUBE_API_VERSIONS); is the operator installed there?", r.Ref()))
		} else if len(missing) > 0 {
			out = append(out, fmt.Sprintf("the cluster does not serve %s of %s (KUBE_API_VERSIONS)", strings.Join(missing, ", "), r.Ref()))
		}
	}
	return out
}
