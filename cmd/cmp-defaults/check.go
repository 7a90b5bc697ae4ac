package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

func (c *cli) checkCmd() *cobra.Command {
	o := action.NewCheck()
	cmd := &cobra.Command{
		Use:   "check --kubeconfig FILE [--context C] [--operator NAME@VERSION...] [DIR|FILE...|-]",
		Short: "Check the filled manifests against a live cluster's admission (server-side dry run)",
		Long: `Check renders (a DIR: Helm, Kustomize or plain manifests) or reads (FILEs, or stdin) the
manifests, fills them with the selected operator profiles, and asks the cluster what its
admission makes of each custom resource, with server-side dry runs: nothing is stored.
It reports, object by object, every field where the filled object and the cluster disagree:

  +  added          the cluster adds the field: the profile misses a default
  -  removed        the cluster drops the field: it is not in the cluster's schema
  ~  changed        the cluster stores another value
  !  not defaulted  cmp-defaults fills a field this cluster does not default
  ≠  wrong value    cmp-defaults fills another value than this cluster defaults

Findings mean the selected profile does not match the cluster (another operator release, a
patched CRD, a webhook): pick the right --operator release, or write a profile for this
cluster with 'cmp-defaults profiles extract --from-cluster' (CRD defaults) or
'cmp-defaults profiles learn' (what webhooks add).

Each object is dry-run twice, as filled and as written: applied as Argo CD's sync applies it,
or created under a generated name when it exists (docs/cluster-checks.md). Built-in kinds are
skipped unless --all-kinds. The identity needs get, create and patch on the resources.

Exit codes: 0 every object matches, 3 some object differs, 1 error, 2 usage.`,
		Example: `  cmp-defaults check --kubeconfig ~/.kube/config --context prod --operator external-secrets@2.5.0 apps/datadog
  helm template my-chart | cmp-defaults check --operator cert-manager@1.19.1 -o json -`,
		RunE: c.runs(o, func(args []string) { o.Args = args }),
	}
	addClusterSource(cmd.Flags(), &o.ClusterSource)
	addReportOutput(cmd)
	return cmd
}

func (c *cli) profilesLearn() *cobra.Command {
	o := action.NewLearn()
	cmd := &cobra.Command{
		Use:   "learn --kubeconfig FILE [--context C] --as NAME@VERSION [--operator OP@VER...] [DIR|FILE...|-]",
		Short: "Keep what a cluster's admission adds (webhooks) as a profile of mutations",
		Long: `Learn renders (a DIR: Helm, Kustomize or plain manifests) or reads (FILEs, or stdin) the
manifests, fills them with the selected operator profiles, and dry-runs each object twice
against the cluster (server-side, nothing is stored): first applied as Argo CD's sync applies
it (field manager argocd-controller, merged with the stored object when it exists), then
again (an object that exists is created under a generated name, so that admission sees it
alone). What admission adds beyond the selected profiles becomes a profile of 'mutations'
named by --as, printed on stdout (or written with --write): save it into a profiles
directory and select it like any operator release, next to the operators' own:

  --operator external-secrets@2.5.0 --operator prod-webhooks@2026.12.1

When --as names a checked release (--as cloudnative-pg@1.30.0), the profile overrides it: only
its CRD defaults are filled first, so everything your cluster's admission adds (an operator
configured otherwise) is learned; in a profiles directory it replaces the shipped release.

Only defaults are learned: a value both dry runs add, the same for every object (or list item)
that lacks the field, with the sibling field or condition that decides it; the rest is reported
with the reason and a narrow ignoreDifferences rule. --vary FILE generates inputs from the
manifests (a rule must hold on all); --second-context makes the second dry run as another user,
telling apart values that follow the user. docs/cluster-checks.md has the rules in full.

The report goes to stderr (and as JSON to --report FILE). The profile records where it was
learned (API server, context, Kubernetes version, object count, operators filled first);
the time only with --learned-at or $SOURCE_DATE_EPOCH, so that learning twice from the
same cluster prints the same bytes. Built-in kinds are skipped unless --all-kinds. The
cluster identity needs the verbs get, create and patch on the resources (as for 'check').

Exit codes: 0 a profile was learned, 1 error or nothing to learn, 2 usage.`,
		Example: `  cmp-defaults profiles learn --kubeconfig ~/.kube/config --context prod \
    --as prod-webhooks@2026.12.1 --operator external-secrets@2.5.0 apps/ > prod-webhooks.yaml
  cmp-defaults profiles learn --context prod --second-context prod-editor \
    --as cloudnative-pg@1.30.0 --write ./my-profiles --vary vary.yaml seeds.yaml
  cmp-defaults profiles learn --context prod --as prod-webhooks@2026.12.1 --write ./my-profiles \
    --report learn-report.json manifests.yaml
  helm template my-chart | cmp-defaults profiles learn --as prod-webhooks@1.0.0 -`,
		RunE: c.runs(o, func(args []string) { o.Args, o.SourceDateEpoch = args, c.Getenv("SOURCE_DATE_EPOCH") }),
	}
	f := cmd.Flags()
	addClusterSource(f, &o.ClusterSource)
	addOutput(cmd, &o.Format, "format of the profile", report.ManifestFormats)
	f.StringVar(&o.As, "as", "", "operator name and version of the learned profile, NAME@VERSION (e.g. prod-webhooks@2026.12.1); a checked release (cloudnative-pg@1.30.0): a profile that overrides it")
	f.StringVar(&o.LearnedAt, "learned-at", "", "time recorded in the profile, RFC 3339 or 'now' (default $SOURCE_DATE_EPOCH; none: no time, reproducible output)")
	f.StringVar(&o.Report, "report", "", "also write the report as JSON to FILE")
	f.StringVar(&o.Write, "write", "", "write DIR/NAME_VERSION.yaml (a flat profiles directory, ready for kubectl create configmap --from-file) instead of printing the profile")
	f.StringVar(&o.SecondContext, "second-context", "", "kubeconfig context of another user for the second dry run, so that values following the user are told apart")
	f.StringVar(&o.Vary, "vary", "", "variations file (kind LearnVariations): learn from inputs generated from the manifests, each field it names set to each of its values")
	return cmd
}
