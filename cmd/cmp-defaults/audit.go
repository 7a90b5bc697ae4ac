package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
)

func (c *cli) auditCmd() *cobra.Command {
	var o action.Audit
	cmd := &cobra.Command{
		Use:   "audit APP.yaml... [--repo-root DIR] [--operator NAME@VERSION] | audit APP.yaml... --manifests FILE... --operator NAME@VERSION",
		Short: "Find ignoreDifferences rules that cmp-defaults makes redundant",
		Long: `Audit reads the ignoreDifferences rules of Argo CD Applications and ApplicationSet
templates (and, with --argocd-cm, the resource.customizations.ignoreDifferences keys of
argocd-cm), renders each Application's own sources from the repository root, fills them
with the selected operator releases, and evaluates every rule the way Argo CD does:
jqPathExpressions are deleted with del(expr), jsonPointers are removed, group and kind
are globs.

Each Application renders spec.source, or every entry of spec.sources (its rules are judged
against all of them), from the repository root (--repo-root, else the nearest parent with
.git) with its Helm and directory settings; a source naming plugin cmp-defaults renders as
generate renders it, with its operators unless --operator is given. Sources not in this
repository (a Helm repository's chart, another repoURL than --repo-url or the origin remote,
another plugin) are reported as not rendered, with the reason. --source DIR stands in for
a templated path (an ApplicationSet's); a literal path must be that directory.

With --manifests, every rule is judged against the given manifests instead (the output
of another renderer; directories are rendered with -f/--set*/-n/--release-name).

Each jsonPointer, jqPathExpression and managedFieldsManager is reported as
  redundant         every field it ignores is filled by cmp-defaults or set in Git: without
                    it the diff is clean, with it changes to the Git fields stay hidden: delete it
  partly redundant  filled fields mixed with fields neither Git nor a profile explains; the
                    narrowed rule to keep is printed
  still needed      it ignores fields neither Git nor a profile explains (written by a
                    controller; or a default of other releases, which are named)
  out of scope      it matches only kinds no selected profile covers (an HPA's
                    /spec/replicas of a Deployment): not about admission defaults
  matches nothing   no object has the rule's group, kind, name and namespace
  not audited       it matches nothing, and a source of its Application was not rendered
  invalid           Argo CD cannot use it
Findings name the file and line of each rule.

Exit status: 0 when no rule is redundant, 3 when at least one is, 1 on errors,
2 on usage mistakes.`,
		Example: `  cmp-defaults audit examples/argocd/app.yaml --operator external-secrets@2.5.0
  cmp-defaults audit argocd/*.yaml --repo-root ~/src/gitops --operator cloudnative-pg@1.27.0 -o json
  cmp-defaults audit appset.yaml --source apps/eso --argocd-cm argocd-cm.yaml --operator external-secrets@2.5.0
  helm template my-chart > out.yaml && cmp-defaults audit examples/argocd/app.yaml --manifests out.yaml --operator external-secrets@2.5.0`,
		RunE: c.runs(&o, func(args []string) { o.Apps = args }),
	}
	f := cmd.Flags()
	addOperators(f, &o.Operators)
	addRendering(f, &o.Rendering)
	addDirHelm(f, &o.Helm)
	addReportOutput(cmd)
	f.StringArrayVar(&o.ArgocdCM, "argocd-cm", nil, "argocd-cm ConfigMap file whose resource.customizations.ignoreDifferences keys are audited too (repeatable)")
	f.StringVar(&o.Source, "source", "", "the directory that stands in for a templated spec.source.path (an ApplicationSet's); a literal path must be this directory")
	f.StringVar(&o.RepoURL, "repo-url", "", "this repository's URL as the Applications write it (default: the origin remote of the repository root); sources of other repoURLs are not rendered")
	f.StringArrayVar(&o.Manifests, "manifests", nil, "judge every rule against these rendered manifests instead: YAML/JSON files, '-' for stdin, or directories; repeatable")
	return cmd
}
