package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

type auditOptions struct {
	common
	argocdCM  []string
	source    string
	manifests []string
	repoRoot  string
}

func (c *cli) auditCmd() *cobra.Command {
	var o auditOptions
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
		Example: `  cmp-defaults audit app.yaml --source apps/datadog --operator external-secrets@2.5.0
  cmp-defaults audit appset.yaml --argocd-cm argocd-cm.yaml --manifests rendered.yaml --operator cert-manager@1.19.0 -o json
  helm template my-chart > out.yaml && cmp-defaults audit app.yaml --manifests out.yaml --operator external-secrets@2.5.0`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.source == "" && len(o.manifests) == 0:
				return usagef("give the application's manifests with --source DIR or --manifests FILE...")
			case o.source != "" && len(o.manifests) > 0:
				return usagef("give either --source DIR or --manifests FILE..., not both")
			case o.source != "" && c.src != nil && c.src.given():
				return usagef("-f/--values, --set*, -n and --release-name apply to --manifests DIR; --source renders with the Application's own settings")
			}
			if len(args) == 0 && len(o.argocdCM) == 0 {
				return usagef("name the Application or ApplicationSet files to audit (APP.yaml...), or --argocd-cm")
			}
			found, err := audit.Collect(args, o.argocdCM, c.inputs().All, func(file string) ([]byte, error) { return input.ReadFile(file, c.maxInput) })
			if err != nil {
				return err
			}
			for _, w := range found.Warnings {
				c.warn(w)
			}
			var src *audit.AppSource
			if len(found.Sources) > 0 {
				src = &found.Sources[0]
			}
			var targets []*audit.Target
			var res []*operators.Resolution
			if o.source != "" && src != nil && src.Plugin != nil {
				// The Application names the plugin: render what generate
				// renders for it.
				targets, res, err = c.auditPluginSource(&o, src.Plugin)
			} else {
				targets, res, err = c.auditSource(&o, src)
			}
			if err != nil {
				return err
			}
			st, err := c.loadStore(&o.common)
			if err != nil {
				return err
			}
			rep := audit.Run(found.Rules, targets, res, audit.NewHistory(st))
			if o.output.json() {
				if err := report.WriteJSON(c.out, rep); err != nil {
					return err
				}
			} else {
				audit.WriteText(c.out, rep)
			}
			if rep.Summary.Redundant > 0 {
				return foundError{}
			}
			return nil
		},
	}
	addCommon(cmd, &o.common)
	c.addSourceFlags(cmd)
	addOutput(cmd, &o.output, "output format", "text", "json")
	cmd.Flags().StringArrayVar(&o.argocdCM, "argocd-cm", nil, "argocd-cm ConfigMap file whose resource.customizations.ignoreDifferences keys are audited too (repeatable)")
	cmd.Flags().StringVar(&o.source, "source", "", "the application's source directory (spec.source.path in a checkout): plain manifests, Helm or Kustomize, rendered with the Application's Helm settings and filled")
	cmd.Flags().StringVar(&o.repoRoot, "repo-root", "", "with --source: nothing outside this directory is read (default: nearest parent with .git, else the source)")
	cmd.Flags().StringArrayVar(&o.manifests, "manifests", nil, "the application's rendered manifests: YAML/JSON files, '-' for stdin, or directories (rendered with default settings); repeatable")
	return cmd
}

// auditSource renders (--source) or reads (--manifests) the application's
// manifests and fills them with the --operator releases.
func (c *cli) auditSource(o *auditOptions, src *audit.AppSource) ([]*audit.Target, []*operators.Resolution, error) {
	if len(o.operators) == 0 {
		return nil, nil, usagef("audit needs at least one --operator NAME@VERSION: the operator releases running in the cluster (or an Application whose source uses plugin cmp-defaults with its operators, and --source)")
	}
	e, res, err := c.engineFor(&o.common, o.operators)
	if err != nil {
		return nil, nil, err
	}
	var objs []manifest.Object
	if o.source != "" {
		var opt render.Options
		if opt, err = c.auditSourceOptions(o.source, o.repoRoot, src); err == nil {
			objs, err = render.Render(c.ctx, opt)
		}
	} else {
		objs, err = c.inputs().All(o.manifests)
	}
	if err != nil {
		return nil, nil, err
	}
	targets, err := audit.FillTargets(e, objs)
	return targets, res, err
}
