package main

import (
	"context"

	"github.com/cmp-defaults/cmp-defaults/internal/catalog"
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
	crds, err := catalog.CRDsFromCluster(ctx, fc.cluster.options(), fc.groups)
	if err != nil {
		return err
	}
	c.warn(crds.Warnings...)
	return c.writeExtracted(op, ver, crds, dir)
}
