package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
)

func (c *cli) auditCmd() *cobra.Command {
	var o action.Audit
	cmd := &cobra.Command{
		Use:   "audit APP.yaml... (--source DIR | --manifests FILE...) [--operator NAME@VERSION]",
		Short: "Find ignoreDifferences rules that cmp-defaults makes redundant",
		Long: `Audit reads the ignoreDifferences rules of Argo CD Applications and ApplicationSet
templates (and, with --argocd-cm, the resource.customizations.ignoreDifferences keys of
argocd-cm), renders and fills the application's manifests with the selected operator
releases, and evaluates every rule the way Argo CD does: jqPathExpressions are deleted
with del(expr), jsonPointers are removed, group and kind are globs.

Each jsonPointer, jqPathExpression and managedFieldsManager is reported as
  redundant         every field it ignores is filled by cmp-defaults or set in Git: without
                    it the diff is clean, with it changes to the Git fields stay hidden: delete it
  partly redundant  filled fields mixed with fields neither Git nor a profile explains; the
                    narrowed rule to keep is printed
  still needed      it ignores fields neither Git nor a profile explains (written by a
                    controller; or a default of other releases, which are named)
  matches nothing   no object has the rule's group, kind, name and namespace
  invalid           Argo CD cannot use it

With --source, an Application whose source uses plugin cmp-defaults is rendered exactly as
generate renders it (its parameters and plugin env), with its operators unless --operator
is given. Findings name the file and line of each rule.

Exit status: 0 when no rule is redundant, 3 when at least one is, 1 on errors,
2 on usage mistakes.`,
		Example: `  cmp-defaults audit examples/argocd/app.yaml --source examples/plain --operator external-secrets@2.5.0
  cmp-defaults audit appset.yaml --argocd-cm argocd-cm.yaml --manifests rendered.yaml --operator cert-manager@1.19.0 -o json
  helm template my-chart > out.yaml && cmp-defaults audit examples/argocd/app.yaml --manifests out.yaml --operator external-secrets@2.5.0`,
		RunE: c.runs(&o, func(args []string) { o.Apps = args }),
	}
	f := cmd.Flags()
	addOperators(f, &o.Operators)
	addDirHelm(f, &o.Helm)
	addReportOutput(cmd)
	f.StringArrayVar(&o.ArgocdCM, "argocd-cm", nil, "argocd-cm ConfigMap file whose resource.customizations.ignoreDifferences keys are audited too (repeatable)")
	f.StringVar(&o.Source, "source", "", "the application's source directory (spec.source.path in a checkout): plain manifests, Helm or Kustomize, rendered with the Application's Helm settings and filled")
	f.StringVar(&o.RepoRoot, "repo-root", "", "with --source: nothing outside this directory is read (default: nearest parent with .git, else the source)")
	f.StringArrayVar(&o.Manifests, "manifests", nil, "the application's rendered manifests: YAML/JSON files, '-' for stdin, or directories (rendered, with -f/--values, --set*, -n and --release-name when given); repeatable")
	return cmd
}
