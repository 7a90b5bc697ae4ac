package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
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
	cl, err := cluster.Connect(ctx, fc.cluster.options())
	if err != nil {
		return err
	}
	sel, missing, err := cl.CRDsOf(ctx, fc.groups)
	if err != nil {
		return err
	}
	for _, g := range missing {
		fmt.Fprintf(c.errw, "Warning: the cluster has no CustomResourceDefinition of group %s\n", g)
	}
	if len(plugin.SplitList(fc.groups...)) == 0 {
		fmt.Fprintf(c.errw, "Warning: no --group: the profile covers every CRD of the cluster (groups %s)\n", strings.Join(sel.Groups, ", "))
	}
	return c.writeExtracted(op, ver, sel.CRDs, fmt.Sprintf("--from-cluster from %d CRD(s) of %s", len(sel.CRDs), cl.Host), dir)
}
