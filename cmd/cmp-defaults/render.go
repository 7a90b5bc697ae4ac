package main

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/pipeline"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

type renderFlags struct {
	sourceFlags
	kubeVersion string
	apiVersions []string
	include     string
	exclude     string
	repoRoot    string
	timeout     time.Duration
}

func (c *cli) renderCmd() *cobra.Command {
	var o common
	var rf renderFlags
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
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			ropt, err := render.NewOptions(dir, rf.repoRoot, c.maxInput)
			if err != nil {
				return err
			}
			rf.sourceFlags.apply(&ropt)
			ropt.Include, ropt.Exclude = rf.include, rf.exclude
			ropt.KubeVersion, ropt.APIVersions = rf.kubeVersion, plugin.SplitList(rf.apiVersions...)
			return c.pipeline(renderRun{sel: c.selection(&o, o.operators), releaseNameSet: rf.releaseName != "",
				Options: pipeline.Options{Render: ropt, Timeout: rf.timeout, Format: o.output.name}})
		},
	}
	addCommon(cmd, &o)
	addOutput(cmd, &o.output, "output format", "yaml", "json")
	f := cmd.Flags()
	rf.sourceFlags.register(f, "")
	f.StringVar(&rf.kubeVersion, "kube-version", "", "Kubernetes version for .Capabilities.KubeVersion, e.g. 1.34.0")
	f.StringArrayVar(&rf.apiVersions, "api-versions", nil, "extra .Capabilities.APIVersions, group/version or group/version/Kind (repeatable or comma-separated)")
	f.StringVar(&rf.include, "include", "", "directory sources: glob of files to include, e.g. '*.yaml' or '{a.yaml,b/*}'")
	f.StringVar(&rf.exclude, "exclude", "", "directory sources: glob of files to exclude")
	f.StringVar(&rf.repoRoot, "repo-root", "", "nothing outside this directory is read (default: nearest parent with .git, else DIR)")
	f.DurationVar(&rf.timeout, "timeout", plugin.DefaultTimeout, "give up after this long")
	return cmd
}

func (c *cli) generateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "generate",
		Short: "Argo CD CMP entry point: read the CMP environment, render the app path, fill",
		Long: `Generate is what argocd-cmp-server runs (plugin.yaml). It renders the current directory (the
application's path in the unpacked repository) and fills the admission defaults of the operator
releases configured for the Application, then prints the manifest stream.

Configuration, strongest first:
` + plugin.HelpLine("  parameters (ARGOCD_APP_PARAMETERS): ", 100, "      ") + `
  Application plugin env (ARGOCD_ENV_CMP_DEFAULTS_*) or the sidecar's env (CMP_DEFAULTS_*):
      OPERATORS (NAME@VERSION,...), VALUES_FILES (comma list), VALUES, RELEASE_NAME, NAMESPACE,
      ALLOW_EMPTY, STRICT, INCLUDE, EXCLUDE, TIMEOUT (default 40s)
  Argo CD's build env: ARGOCD_APP_NAME (release name), ARGOCD_APP_NAMESPACE (namespace),
      KUBE_VERSION, KUBE_API_VERSIONS, ARGOCD_APP_SOURCE_PATH (to find the repository root)
Sidecar only: CMP_DEFAULTS_PROFILES_DIR (extra profiles, colon-separated), and the limits
  CMP_DEFAULTS_MAX_INPUT_BYTES (64 MiB), CMP_DEFAULTS_MAX_MEMORY_BYTES (768 MiB of heap),
  CMP_DEFAULTS_MAX_DOCUMENTS (200000).

An empty result is an error unless allow-empty is true: with prune: true it would delete the
application's resources. Settings the Application gives that would do nothing for its source
(Helm settings on a directory or kustomization, INCLUDE/EXCLUDE on a chart) are errors.
Errors name the parameter or variable to change; configuration errors exit 1.`,
		Example: `  # what argocd-cmp-server does, by hand:
  cd examples/helm && ARGOCD_APP_NAME=datadog ARGOCD_APP_NAMESPACE=datadog \
    ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0 cmp-defaults generate`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			cfg, err := plugin.FromEnv(os.Environ(), wd)
			if err != nil {
				return configError{err}
			}
			for _, w := range cfg.Warnings {
				c.warn(w)
			}
			c.names = names{plugin.Names{Plugin: true, From: cfg.From}}
			if len(cfg.Operators) == 0 {
				return configError{plugin.ErrNoOperators}
			}
			r := runOf(cfg, cfg.Selection(c.profileDirs))
			r.Format, r.APIVersions = "yaml", cfg.APIVersions
			return c.pipeline(r)
		},
	}
}

// renderRun is one render and fill as a command asks for it: the
// pipeline's options (Format set: encode into c.out) and the releases.
type renderRun struct {
	pipeline.Options
	sel            operators.Selection
	releaseNameSet bool // the release name was chosen, not defaulted
}

// runOf is the run generate's configuration asks for.
func runOf(cfg *plugin.Config, sel operators.Selection) renderRun {
	return renderRun{sel: sel, releaseNameSet: cfg.From["release-name"] != "",
		Options: pipeline.Options{Render: cfg.RenderOptions(), Timeout: cfg.Timeout, RefuseEmpty: !cfg.AllowEmpty}}
}

// pipeline is render -> fill -> encode under one deadline and the run's
// memory budget; every step honours both. On a timeout it says which step
// was running.
func (c *cli) pipeline(r renderRun) error {
	_, _, err := c.renderFill(r, nil)
	if err != nil {
		return err
	}
	if len(r.sel.Refs) == 0 && !c.names.Plugin {
		// Only on success: it must not precede an unrelated error.
		c.warn("no --operator selected; objects are rendered but not filled")
	}
	return nil
}

// renderFill renders and fills as generate does (internal/pipeline), then
// encodes into c.out when r.Format is set; audit uses it to render an
// Application that names the plugin. record, when set, sees every filled field.
func (c *cli) renderFill(r renderRun, record func(int, defaults.Filled)) ([]manifest.Object, []*operators.Resolution, error) {
	opt := r.Options
	opt.Render.MaxBytes = c.maxInput
	opt.TimeoutName, opt.Plugin, opt.Record, opt.Out, opt.Warn = c.names.Of("timeout"), c.names.Plugin, record, c.out, func(m string) { c.warn(m) }
	return pipeline.Run(c.ctx, opt, pipeline.Hooks{
		Load: func() (*defaults.Engine, []*operators.Resolution, error) { return c.load(r.sel) },
		Settings: func(kind render.Kind, ropt render.Options) error {
			return c.unusedSettings(kind, ropt, ropt.Dir, r.releaseNameSet)
		},
		Filled: c.warnUnserved,
	})
}

// unusedSettings refuses settings that do nothing for this kind of source
// (render.Unused): the user believes they apply. dir is as the user named it.
func (c *cli) unusedSettings(kind render.Kind, opt render.Options, dir string, releaseNameSet bool) error {
	unused := c.names.ByUser(render.Unused(kind, opt, releaseNameSet))
	if len(unused) == 0 {
		return nil
	}
	msg := render.UnusedMessage(kind, dir, unused, c.names.Of)
	if c.names.Plugin {
		return configError{errors.New(msg + "; remove them from the Application")}
	}
	return usageError{errors.New(msg + "; remove them")}
}

// warnUnserved warns once per apiVersion and kind that a selected release
// does not serve (pipeline.Unserved).
func (c *cli) warnUnserved(res []*operators.Resolution, objs []manifest.Object) {
	for _, w := range c.unserved.Check(c.store, res, objs) {
		c.warn(w)
	}
}
