package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/explain"
)

func (c *cli) explainCmd() *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "explain [DIR|FILE...|-]",
		Short: "Show, object by object, which fields would be filled and why",
		Long: `Explain fills like 'fill' but prints, for every object, each field that would be set,
its value, the rule (a jq path), and the operator release and profile file it comes from.
A directory argument is rendered first (Helm, Kustomize or plain manifests, default settings).`,
		Example: `  cmp-defaults explain --operator external-secrets@2.5.0 examples/plain/externalsecret.yaml
  cmp-defaults explain --operator cert-manager@1.19.0 -o json certificate.yaml
  cmp-defaults explain --operator external-secrets@2.5.0 examples/helm`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.operators) == 0 {
				return usagef("explain needs at least one --operator NAME@VERSION")
			}
			if err := c.needInput(cmd, args); err != nil {
				return err
			}
			e, res, err := c.engine(&o)
			if err != nil {
				return err
			}
			objs, err := c.inputs().All(args)
			if err != nil {
				return err
			}
			rep, err := explain.Run(e, res, objs)
			if err != nil {
				return err
			}
			if o.output.json() {
				return explain.WriteJSON(c.out, rep)
			}
			explain.WriteText(c.out, rep)
			return nil
		},
	}
	addCommon(cmd, &o)
	c.addSourceFlags(cmd)
	addOutput(cmd, &o.output, "output format", "text", "json")
	return cmd
}
