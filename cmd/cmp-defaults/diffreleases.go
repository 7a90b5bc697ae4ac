package main

import (
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/diff"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
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
			na, _, err := operators.ParseRef(args[0])
			if err != nil {
				return usageError{err}
			}
			nb, _, err := operators.ParseRef(args[1])
			if err != nil {
				return usageError{err}
			}
			if na != nb {
				return usagef("compare two releases of one operator, e.g. %s@A %s@B; got %s and %s", na, na, na, nb)
			}
			ea, ra, err := c.engineFor(&o, args[:1])
			if err != nil {
				return err
			}
			eb, rb, err := c.engineFor(&o, args[1:2])
			if err != nil {
				return err
			}
			inputs := args[2:]
			if len(inputs) == 0 {
				d := diff.Profiles(ra[0], rb[0])
				if err := c.writeDiff(o.output.json(), d, func() { diff.WriteProfiles(c.out, d) }); err != nil {
					return err
				}
				if d.Count() > 0 {
					return foundError{}
				}
				return nil
			}
			// Directories are rendered (plain, Helm, Kustomize) with
			// default settings, as by fill.
			objs, err := c.inputs().All(inputs)
			if err != nil {
				return err
			}
			other := make([]manifest.Object, len(objs))
			for i, ob := range objs {
				other[i] = ob
				other[i].Data = runtime.DeepCopyJSON(ob.Data)
			}
			if err := ea.FillAll(objs, nil); err != nil {
				return err
			}
			if err := eb.FillAll(other, nil); err != nil {
				return err
			}
			rep := &diff.ObjectsReport{From: diff.NewRelease(ra[0]), To: diff.NewRelease(rb[0]), Total: len(objs), Objects: diff.Objects(objs, other)}
			if err := c.writeDiff(o.output.json(), rep, func() { diff.WriteObjects(c.out, rep) }); err != nil {
				return err
			}
			if len(rep.Objects) > 0 {
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

func (c *cli) writeDiff(asJSON bool, v any, text func()) error {
	if asJSON {
		return report.WriteJSON(c.out, v)
	}
	text()
	return nil
}
