package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/diff"
)

func (c *cli) diffReleasesCmd() *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "diff-releases OP@A OP@B [DIR|FILE...|-]",
		Short: "Show what changes between two releases of an operator, for your manifests",
		Long: `Diff-releases compares the admission defaults of two releases of one operator.

Without inputs it prints the difference between the two profiles: defaults and
mutations added, removed or changed, per apiVersion and kind.

With inputs (files, '-' for stdin, or one source directory) it fills every object once
with each release and prints, object by object, the fields that appear, disappear or
change value: the drift an operator upgrade creates or removes for your manifests.

Exit status: 0 when nothing changes, 3 when something does, 1 on errors, 2 on usage
mistakes.`,
		Example: `  cmp-defaults diff-releases external-secrets@2.6.0 external-secrets@2.7.0
  cmp-defaults diff-releases external-secrets@2.6.0 external-secrets@2.7.0 externalsecret.yaml
  helm template my-chart | cmp-defaults diff-releases cert-manager@1.19.0 cert-manager@1.19.1 - -o json`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := diff.SameOperator(args[0], args[1]); err != nil {
				return usageError{err}
			}
			ea, ra, err := c.engineFor(&o, args[:1])
			if err != nil {
				return err
			}
			eb, rb, err := c.engineFor(&o, args[1:2])
			if err != nil {
				return err
			}
			var rep interface {
				printable
				Changed() bool
			}
			if inputs := args[2:]; len(inputs) == 0 {
				rep = diff.Profiles(ra[0], rb[0])
			} else {
				// Directories are rendered (plain, Helm, Kustomize) with
				// default settings, as by fill.
				objs, err := c.inputs().All(inputs)
				if err != nil {
					return err
				}
				if rep, err = diff.Fill(ea, eb, ra[0], rb[0], objs); err != nil {
					return err
				}
			}
			if err := c.print(&o.output, rep); err != nil {
				return err
			}
			if rep.Changed() {
				return foundError{}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default from $CMP_DEFAULTS_PROFILES_DIR, colon-separated)")
	f.BoolVar(&o.strict, "strict", false, "fail instead of warning when a release was not checked (newer or unknown patch)")
	addOutput(cmd, &o.output, "output format", "text", "json")
	c.addSourceFlags(cmd)
	return cmd
}
