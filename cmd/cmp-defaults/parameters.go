package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/catalog"
)

func (c *cli) parametersCmd() *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "parameters",
		Short: "Print the parameter announcement for the Argo CD UI (JSON array)",
		Long: `Prints the JSON array of parameter announcements that Argo CD reads from the plugin's
parameters.dynamic command (plugin.yaml). The Application's parameter form then offers
the operators known to this sidecar -- shipped profiles plus those in
$CMP_DEFAULTS_PROFILES_DIR -- each with its newest checked release, and the Helm settings.

Announced values are suggestions shown in the UI; generate receives only the parameters
that the Application sets.`,
		Example: "  cmp-defaults parameters\n  CMP_DEFAULTS_PROFILES_DIR=/home/argocd/cmp-defaults/profiles cmp-defaults parameters",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := c.loadStore(&o)
			if err != nil {
				return err
			}
			p, err := catalog.ParametersOf(st)
			if err != nil {
				return err
			}
			return p.WriteJSON(c.out)
		},
	}
	cmd.Flags().StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default $CMP_DEFAULTS_PROFILES_DIR, colon-separated)")
	return cmd
}
