package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

func (c *cli) fillCmd() *cobra.Command {
	o := action.NewFill()
	cmd := &cobra.Command{
		Use:   "fill [FILE...|-]",
		Short: "Fill admission defaults into a YAML/JSON stream from files or stdin",
		Long: `Fill reads Kubernetes objects (YAML or JSON, multi-document, List kinds flattened) and
writes them back with every field the selected operator releases' admission would add.
Fields you wrote are never changed; objects of other kinds pass through.`,
		Example: "  cmp-defaults fill --operator external-secrets@2.5.0 examples/plain/externalsecret.yaml\n  helm template my-chart | cmp-defaults fill --operator cert-manager@1.19.0 -",
		RunE:    c.runsOnInput(o, &o.Args),
	}
	f := cmd.Flags()
	addOperators(f, &o.Operators)
	addOutput(cmd, &o.Format, "output format", report.ManifestFormats)
	addDirHelm(f, &o.Helm)
	addRendering(f, &o.Rendering)
	return cmd
}

func (c *cli) explainCmd() *cobra.Command {
	var o action.Explain
	cmd := &cobra.Command{
		Use:   "explain [DIR|FILE...|-]",
		Short: "Show, object by object, which fields would be filled and why",
		Long: `Explain fills like 'fill' but prints, for every object, each field that would be set,
its value, the rule (a jq path), and the operator release and profile file it comes from.
A directory argument is rendered first (Helm, Kustomize or plain manifests), with -f/--values,
--set*, -n/--namespace and --release-name when given.`,
		Example: `  cmp-defaults explain --operator external-secrets@2.5.0 examples/plain/externalsecret.yaml
  cmp-defaults explain --operator external-secrets@2.5.0 -o json examples/kustomize/overlays/prod
  cmp-defaults explain --operator external-secrets@2.5.0 examples/helm`,
		RunE: c.runsOnInput(&o, &o.Args),
	}
	f := cmd.Flags()
	addOperators(f, &o.Operators)
	addDirHelm(f, &o.Helm)
	addRendering(f, &o.Rendering)
	addReportOutput(cmd)
	return cmd
}

func (c *cli) diffReleasesCmd() *cobra.Command {
	var o action.DiffReleases
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
  cmp-defaults diff-releases external-secrets@2.6.0 external-secrets@2.7.0 examples/plain/externalsecret.yaml
  helm template my-chart | cmp-defaults diff-releases cert-manager@1.19.0 cert-manager@1.19.1 - -o json`,
		Args: takes(2, -1, "two releases of one operator, OP@A OP@B (e.g. external-secrets@2.6.0 external-secrets@2.7.0), then optional inputs"),
		RunE: c.runs(&o, func(args []string) { o.A, o.B, o.Inputs = args[0], args[1], args[2:] }),
	}
	f := cmd.Flags()
	addProfileDirs(f, &o.Operators)
	addStrict(f, &o.Operators)
	addReportOutput(cmd)
	addDirHelm(f, &o.Helm)
	addRendering(f, &o.Rendering)
	return cmd
}
