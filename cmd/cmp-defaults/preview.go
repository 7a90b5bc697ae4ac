package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/preview"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

func (c *cli) previewCmd() *cobra.Command {
	var o action.Preview
	cmd := &cobra.Command{
		Use:   "preview --base REV|DIR --head REV|DIR [--operator NAME@VERSION...] [--output-dir DIR]",
		Short: "Show what Argo CD will change after a merge, and whether each app will be Synced",
		Long: `Preview finds every Argo CD Application of the repository at two revisions (git revisions of
--repo-root, or two directories), following apps of apps and ApplicationSets (with cmp-defaults-appset),
renders each as the repo-server would, offline unless --allow-remote-charts, fills what admission adds (a
plugin source with its own operators, others with --operator), and compares both sides per resource as
stored: each Application's change and predicted sync status; per resource a diff, what admission fills,
changes ignoreDifferences hides, immutable fields, hooks, prunes. Secrets never appear. docs/preview.md.
Exit codes: 0 no change, 3 changes, 1 error (an app that does not render, unless --keep-going), 2 usage.`,
		Example: `  cmp-defaults preview --base origin/main --head HEAD --operator cloudnative-pg@1.27.0
  cmp-defaults preview --base main --head HEAD -o markdown --output-dir preview/ --fail-on outofsync`,
		Args: takes(0, 0, "no arguments"),
		RunE: c.runs(&o, func([]string) {}),
	}
	f := cmd.Flags()
	addOperators(f, &o.Operators)
	addOutput(cmd, new(string), "output format", append(report.ReportFormats, "markdown"))
	f.StringVar(&o.RepoRoot, "repo-root", "", "the git repository (default: the nearest parent directory with .git)")
	f.DurationVar(&o.Timeout, "timeout", action.DefaultPreviewTimeout, "give up the whole preview after this long")
	f.StringVar(&o.Base, "base", "", "the revision merged into (a git revision, or a directory)")
	f.StringVar(&o.Head, "head", "", "the revision to preview (a git revision, or a directory)")
	f.StringVar(&o.RepoURL, "repo-url", "", "this repository's URL as the Applications write it (default: the origin remote); sources of other repoURLs are not rendered")
	f.StringArrayVar(&o.ArgocdCM, "argocd-cm", nil, "argocd-cm ConfigMap file whose resource.customizations.ignoreDifferences apply to every Application (repeatable)")
	f.BoolVar(&o.KeepGoing, "keep-going", false, "report Applications that fail to render instead of failing")
	f.StringSliceVar(&o.FailOn, "fail-on", nil, "exit 1 (after writing --output-dir) when an Application is predicted OutOfSync (outofsync) or a change is hidden by ignoreDifferences (hidden-change)")
	f.IntVar(&o.MaxCommentBytes, "max-comment-bytes", preview.DefaultMaxCommentBytes, "largest part of the Markdown report")
	f.StringVar(&o.OutputDir, "output-dir", "", "write report.json, comment-N.md and the manifests of both sides to DIR")
	f.StringVar(&o.AppSetGenerator, "appset-generator", "", "the program that generates ApplicationSets (default: cmp-defaults-appset beside this binary, else on PATH)")
	f.StringVar(&o.KubeVersion, "kube-version", "", "the clusters' Kubernetes version for Helm's .Capabilities.KubeVersion, as Argo CD passes it (default: Helm's)")
	f.StringSliceVar(&o.APIVersions, "api-versions", nil, "more .Capabilities.APIVersions than the selected releases' kinds, group/version or group/version/Kind")
	f.StringVar(&o.Clusters, "clusters", "", "YAML file of Argo CD cluster Secrets for ApplicationSets' Clusters generator (default: the in-cluster cluster)")
	f.BoolVar(&o.AllowRemoteCharts, "allow-remote-charts", false, "download and render the charts of Helm repositories and OCI registries that sources name (public ones: no credentials are sent)")
	f.StringVar(&o.ChartCache, "chart-cache", "", "keep downloaded chart archives in DIR for later runs (default: a temporary directory)")
	return cmd
}
