package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
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
			if err := o.validate(); err != nil {
				return err
			}
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
			if n := inputSize(args); n > 0 && n <= c.maxInput {
				c.out.Grow(int(2 * n))
				debug.SetMemoryLimit(48<<20 + 2*n)
			}
			enc, err := manifest.NewEncoder(c.out, o.output)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(c.context(), timeout)
			defer cancel()
			e = e.WithContext(ctx)
			err = c.eachInput(args, func(ob manifest.Object) error {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				if err := fillOne(e, ob, nil); err != nil {
					return err
				}
				c.warnUnserved(res, []manifest.Object{ob})
				return enc.Encode(ob)
			})
			if cause := context.Cause(ctx); cause != nil {
				if errors.Is(cause, context.DeadlineExceeded) {
					return fmt.Errorf("gave up after %s while filling; raise --timeout if the input is meant to be this large", timeout)
				}
				return cause
			}
			if err != nil {
				return err
			}
			if len(o.operators) == 0 {
				fmt.Fprintln(c.errw, "Warning: no --operator selected; objects pass through unchanged")
			}
			return enc.Close()
		},
	}
	addCommon(cmd, &o)
	c.addSourceFlags(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", plugin.DefaultTimeout, "give up after this long")
	return cmd
}

// inputSize is the total size of the named files (0 for stdin).
func inputSize(args []string) int64 {
	var n int64
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}
