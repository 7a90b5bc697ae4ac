package main

import (
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/pipeline"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
)

func (c *cli) fillCmd() *cobra.Command {
	var o common
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "fill [FILE...|-]",
		Short: "Fill admission defaults into a YAML/JSON stream from files or stdin",
		Long: `Fill reads Kubernetes objects (YAML or JSON, multi-document, List kinds flattened) and
writes them back with every field the selected operator releases' admission would add.
Fields you wrote are never changed; objects of other kinds pass through.`,
		Example: `  cmp-defaults fill --operator external-secrets@2.5.0 examples/plain/externalsecret.yaml
  helm template my-chart | cmp-defaults fill --operator cert-manager@1.19.0 -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.needInput(cmd, args); err != nil {
				return err
			}
			e, res, err := c.engine(&o)
			if err != nil {
				return err
			}
			// Stream: each object is filled and encoded as soon as it is
			// decoded; the output stays in memory until everything succeeded.
			// Reserve room for the output (filled YAML in block style is up to
			// about twice the input; pages never written cost no memory), and
			// let the GC work harder rather than let the heap double: the
			// input streams through, so the output is nearly all that lives.
			if n := input.Size(args); n > 0 && n <= c.maxInput {
				c.out.Grow(int(2 * n))
				debug.SetMemoryLimit(48<<20 + 2*n)
			}
			st := pipeline.Stream{Timeout: timeout, TimeoutName: "--timeout", Format: o.output.name, Out: c.out,
				Filled: func(ob manifest.Object) { c.warnUnserved(res, []manifest.Object{ob}) }}
			if err := st.Run(c.ctx, e, func(fn func(manifest.Object) error) error { return c.inputs().Each(args, fn) }); err != nil {
				return err
			}
			if len(o.operators) == 0 {
				c.warn("no --operator selected; objects pass through unchanged")
			}
			return nil
		},
	}
	addCommon(cmd, &o)
	addOutput(cmd, &o.output, "output format", "yaml", "json")
	c.addSourceFlags(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", plugin.DefaultTimeout, "give up after this long")
	return cmd
}
