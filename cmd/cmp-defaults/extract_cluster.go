package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// fromClusterFlags are the flags 'profiles extract' gains for reading CRDs
// from a live cluster.
type fromClusterFlags struct {
	enabled bool
	cluster clusterFlags
	groups  []string
}

// extractFromCluster writes the profile of the cluster's CRDs (of the
// selected groups) to stdout, or to DIR/OPERATOR/VERSION.yaml.
func (c *cli) extractFromCluster(ctx context.Context, fc *fromClusterFlags, op, ver, dir string) error {
	if op == "" || ver == "" {
		return usagef("extract needs --operator NAME and --version V")
	}
	// Fail on a bad name or version before talking to the cluster.
	if _, err := operators.Extract(op, ver, nil); err != nil {
		return err
	}
	groups := map[string]bool{}
	for _, g := range fc.groups {
		if g = strings.TrimSpace(g); g != "" {
			groups[g] = true
		}
	}
	cl, err := cluster.Connect(ctx, fc.cluster.options())
	if err != nil {
		return err
	}
	items, err := cl.CRDs(ctx)
	if err != nil {
		return err
	}
	var crds []apiextv1.CustomResourceDefinition
	all := map[string]bool{}
	for _, it := range items {
		var crd apiextv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(it.Object, &crd); err != nil {
			return fmt.Errorf("CustomResourceDefinition %s from the cluster: %v", it.GetName(), err)
		}
		all[crd.Spec.Group] = true
		if len(groups) == 0 || groups[crd.Spec.Group] {
			crds = append(crds, crd)
		}
	}
	sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
	if len(crds) == 0 {
		var have []string
		for g := range all {
			have = append(have, g)
		}
		sort.Strings(have)
		if len(groups) == 0 {
			return fmt.Errorf("the cluster at %s has no CustomResourceDefinitions", cl.Host)
		}
		return fmt.Errorf("the cluster at %s has no CustomResourceDefinition of group %s (groups with CRDs: %s)", cl.Host, strings.Join(clusterGroupList(groups), ", "), noneIfEmpty(strings.Join(have, ", ")))
	}
	for g := range groups {
		if !all[g] {
			fmt.Fprintf(c.errw, "Warning: the cluster has no CustomResourceDefinition of group %s\n", g)
		}
	}
	if len(groups) == 0 {
		fmt.Fprintf(c.errw, "Warning: no --group: the profile covers every CRD of the cluster (groups %s)\n", strings.Join(clusterGroupList(all), ", "))
	}
	return c.writeExtracted(op, ver, crds, fmt.Sprintf("--from-cluster from %d CRD(s) of %s", len(crds), cl.Host), dir)
}

func clusterGroupList(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
