package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// CRDSelection is what CRDsOf found: the CRDs of the asked groups, sorted
// by name, and every group the cluster has CRDs of.
type CRDSelection struct {
	CRDs   []apiextv1.CustomResourceDefinition
	Groups []string // sorted
}

// CRDsOf reads the cluster's CRDs of groups (every CRD when none are
// given). A group none of whose CRDs the cluster has is an error when it
// leaves nothing to return, and in missing otherwise.
func (c *Client) CRDsOf(ctx context.Context, groups []string) (sel CRDSelection, missing []string, err error) {
	want := map[string]bool{}
	for _, g := range groups {
		if g = strings.TrimSpace(g); g != "" {
			want[g] = true
		}
	}
	items, err := c.CRDs(ctx)
	if err != nil {
		return sel, nil, err
	}
	all := map[string]bool{}
	for _, it := range items {
		var crd apiextv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &crd); err != nil {
			return sel, nil, fmt.Errorf("CustomResourceDefinition %s from the cluster: %v", it.GetName(), err)
		}
		all[crd.Spec.Group] = true
		if len(want) == 0 || want[crd.Spec.Group] {
			sel.CRDs = append(sel.CRDs, crd)
		}
	}
	sort.Slice(sel.CRDs, func(i, j int) bool { return sel.CRDs[i].Name < sel.CRDs[j].Name })
	sel.Groups = slices.Sorted(maps.Keys(all))
	if len(sel.CRDs) == 0 {
		if len(want) == 0 {
			return sel, nil, fmt.Errorf("the cluster at %s has no CustomResourceDefinitions", c.Host)
		}
		return sel, nil, fmt.Errorf("the cluster at %s has no CustomResourceDefinition of group %s (groups with CRDs: %s)", c.Host, strings.Join(slices.Sorted(maps.Keys(want)), ", "), orNone(strings.Join(sel.Groups, ", ")))
	}
	for _, g := range slices.Sorted(maps.Keys(want)) {
		if !all[g] {
			missing = append(missing, g)
		}
	}
	return sel, missing, nil
}
