package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

func (c *cli) renderCmd() *cobra.Command {
	o := action.NewRender()
	cmd := &cobra.Command{
		Use:   "render [DIR]",
		Short: "Render a source directory (plain, Helm, Kustomize) and fill it: a local preview of generate",
		Long: `Render detects the source type of DIR (default: the current directory) like Argo CD does --
Chart.yaml: Helm; kustomization.yaml: Kustomize; otherwise a directory of YAML/JSON manifests --
renders it in-process and fills the admission defaults of the selected operator releases.
Nothing outside the repository root (the nearest parent with .git, or --repo-root) is read.`,
		Example: `  cmp-defaults render --operator external-secrets@2.5.0 examples/helm --values values-prod.yaml
  cmp-defaults render --operator external-secrets@2.5.0 examples/kustomize/overlays/prod
  cmp-defaults render examples/plain --include '*.yaml' --exclude 'configmap.yaml'`,
		Args: takes(0, 1, "one source directory; to fill several files or directories, use 'cmp-defaults fill'"),
		RunE: c.runs(o, func(args []string) { o.Dir = strings.Join(args, "") }), // none: the current directory
	}
	f := cmd.Flags()
	addOperators(f, &o.Operators)
	addOutput(cmd, &o.Format, "output format", report.ManifestFormats)
	addHelm(f, &o.Helm, "", true)
	f.StringVar(&o.Helm.KubeVersion, "kube-version", "", "Kubernetes version for .Capabilities.KubeVersion, e.g. 1.34.0")
	f.StringArrayVar(&o.Helm.APIVersions, "api-versions", nil, "extra .Capabilities.APIVersions, group/version or group/version/Kind (repeatable or comma-separated)")
	f.StringVar(&o.Include, flagName(settings.Include), "", "directory sources: glob of files to include, e.g. '*.yaml' or '{a.yaml,b/*}'")
	f.StringVar(&o.Exclude, flagName(settings.Exclude), "", "directory sources: glob of files to exclude")
	addRendering(f, &o.Rendering)
	return cmd
}

func (c *cli) generateCmd() *cobra.Command {
	var o action.Generate
	return &cobra.Command{
		Use:   "generate",
		Short: "Argo CD CMP entry point: read the CMP environment, render the app path, fill",
		Long: `Generate is what argocd-cmp-server runs (plugin.yaml). It renders the current directory (the
application's path in the unpacked repository) and fills the admission defaults of the operator
releases configured for the Application, then prints the manifest stream.

Configuration, strongest first:
` + cmpenv.HelpLine("  parameters (ARGOCD_APP_PARAMETERS): ", 100, "      ") + `
  Application plugin env (ARGOCD_ENV_CMP_DEFAULTS_*) or the sidecar's env (CMP_DEFAULTS_*):
` + cmpenv.EnvHelpLine("      ", 100, "      ") + `
  Argo CD's build env: ARGOCD_APP_NAME (release name), ARGOCD_APP_NAMESPACE (namespace),
      KUBE_VERSION, KUBE_API_VERSIONS, ARGOCD_APP_SOURCE_PATH (to find the repository root)
Sidecar only: CMP_DEFAULTS_PROFILES_DIR (extra profiles, colon-separated), and the limits
  CMP_DEFAULTS_MAX_INPUT_BYTES (64 MiB), CMP_DEFAULTS_MAX_DOCUMENTS (200000),
  CMP_DEFAULTS_MAX_MEMORY_BYTES (768 MiB of resident memory) for supervisor and worker together;
  CMP_DEFAULTS_SANDBOX: unset, the worker is confined with every layer the kernel has (no
  network, read-only repository); require: a missing layer is an error; off: not confined.

An empty result is an error unless allow-empty is true: with prune: true it would delete the
application's resources. Settings the Application gives that would do nothing for its source
(Helm settings on a directory or kustomization, INCLUDE/EXCLUDE on a chart) are errors.
Errors name the parameter or variable to change; configuration errors exit 1.`,
		Example: `  # what argocd-cmp-server does, by hand:
  cd examples/helm && ARGOCD_APP_NAME=datadog ARGOCD_APP_NAMESPACE=datadog \
    ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0 cmp-defaults generate`,
		Args: takes(0, 0, "no arguments: it renders the working directory"),
		RunE: c.runs(&o, func([]string) { o.Environ, o.WorkDir = c.Environ, c.WorkDir }),
	}
}
