package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

func init() {
	extraCommands = append(extraCommands, (*cli).renderCmd, (*cli).generateCmd)
}

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
			if err := o.validate(); err != nil {
				return err
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			root := rf.repoRoot
			if root == "" {
				root = findRepoRoot(abs)
			}
			name := rf.releaseName
			if name == "" {
				name = filepath.Base(abs)
			}
			ropt := render.Options{Dir: abs, RepoRoot: root, Include: rf.include, Exclude: rf.exclude,
				ValuesFiles: rf.values, Set: rf.set, SetString: rf.setString, SetJSON: rf.setJSON, SetFile: rf.setFile, ReleaseName: name,
				Namespace: rf.namespace, KubeVersion: rf.kubeVersion, APIVersions: splitAll(rf.apiVersions)}
			c.releaseNameSet = rf.releaseName != ""
			return c.pipeline(&o, ropt, rf.timeout, false)
		},
	}
	addCommon(cmd, &o)
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
  parameters (ARGOCD_APP_PARAMETERS): operators (map NAME: VERSION), values-files (array),
      values (string), set (map), release-name, namespace, allow-empty ("true"/"false")
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
				fmt.Fprintln(c.errw, "Warning: "+w)
			}
			c.names = names{plugin: true, from: cfg.From}
			if len(cfg.Operators) == 0 {
				return configError{errors.New(`no operator release configured for this Application. Set one of:
  the plugin parameter 'operators' (a map), e.g.
    plugin: {name: cmp-defaults, parameters: [{name: operators, map: {external-secrets: "2.5.0"}}]}
  or the plugin env CMP_DEFAULTS_OPERATORS, e.g.
    plugin: {name: cmp-defaults, env: [{name: CMP_DEFAULTS_OPERATORS, value: "external-secrets@2.5.0"}]}
'cmp-defaults profiles list' shows the operators and releases this sidecar knows`)}
			}
			o := common{operators: cfg.Operators, strict: cfg.Strict, output: "yaml"}
			c.apiVersions = cfg.APIVersions
			c.releaseNameSet = cfg.From["release-name"] != ""
			return c.pipeline(&o, cfg.RenderOptions(), cfg.Timeout, !cfg.AllowEmpty)
		},
	}
}

// pipeline is render -> fill -> encode under one deadline and the run's
// memory budget; every step honours both. On a timeout it says which step
// was running.
func (c *cli) pipeline(o *common, ropt render.Options, timeout time.Duration, refuseEmpty bool) error {
	_, _, err := c.renderFill(o, ropt, timeout, refuseEmpty, true, nil)
	if err != nil {
		return err
	}
	if len(o.operators) == 0 && !c.names.plugin {
		// Only on success: it must not precede an unrelated error.
		fmt.Fprintln(c.errw, "Warning: no --operator selected; objects are rendered but not filled")
	}
	return nil
}

// renderFill renders and fills as generate does, then encodes into c.out
// when encode is set; audit uses it to render an Application that names the
// plugin. record, when set, sees every filled field.
func (c *cli) renderFill(o *common, ropt render.Options, timeout time.Duration, refuseEmpty, encode bool, record func(int, defaults.Filled)) ([]manifest.Object, []*operators.Resolution, error) {
	ctx, cancel := context.WithTimeout(c.context(), timeout)
	defer cancel()
	ropt.MaxBytes = c.maxInput
	step := "loading profiles"
	fail := func(err error) ([]manifest.Object, []*operators.Resolution, error) {
		if cause := context.Cause(ctx); errors.Is(cause, guard.ErrMemory) {
			return nil, nil, fmt.Errorf("while %s: %w", step, cause)
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, nil, fmt.Errorf("gave up after %s while %s; make the source smaller or raise %s (Argo CD kills the plugin at its own 60s deadline)", timeout, step, c.names.of("timeout"))
		}
		return nil, nil, err
	}
	type loaded struct {
		e   *defaults.Engine
		res []*operators.Resolution
	}
	l, err := guard.Within(ctx, func() (loaded, error) {
		e, res, err := c.engine(o)
		return loaded{e, res}, err
	})
	if err != nil {
		return fail(err)
	}
	e, res := l.e.WithContext(ctx), l.res
	c.warnUnservedKinds(res)
	kind, err := render.Detect(ropt.Dir)
	if err != nil {
		return fail(err)
	}
	if unused := c.names.byUser(render.Unused(kind, ropt, c.releaseNameSet)); len(unused) > 0 {
		return fail(c.unusedSettings(kind, ropt.Dir, unused))
	}
	step = fmt.Sprintf("rendering the %s source %s", kind, ropt.Dir)
	objs, err := render.Render(ctx, ropt)
	if errors.Is(err, render.ErrNoSources) && c.names.plugin {
		if !refuseEmpty {
			objs, err = nil, nil // allow-empty: an empty directory is an empty result
		} else {
			err = fmt.Errorf("%w; if an empty application is intended, set the parameter allow-empty to \"true\"", err)
		}
	}
	if err != nil {
		return fail(err)
	}
	if len(objs) == 0 && refuseEmpty {
		return fail(fmt.Errorf("the %s source %s rendered no objects; refusing to print an empty result, which with prune: true deletes every resource of the application. Set the parameter allow-empty to \"true\" if this is intended", kind, ropt.Dir))
	}
	step = fmt.Sprintf("filling %d objects", len(objs))
	for i := range objs {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		var rec func(defaults.Filled)
		if record != nil {
			rec = func(f defaults.Filled) { record(i, f) }
		}
		if err := fillOne(e, objs[i], rec); err != nil {
			return fail(err)
		}
	}
	c.warnUnserved(res, objs)
	if !encode {
		return objs, res, nil
	}
	step = fmt.Sprintf("encoding %d objects", len(objs))
	enc, err := manifest.NewEncoder(c.out, o.output)
	if err != nil {
		return fail(err)
	}
	for _, ob := range objs {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		if err := enc.Encode(ob); err != nil {
			return fail(err)
		}
	}
	if err := enc.Close(); err != nil {
		return fail(err)
	}
	return objs, res, nil
}

// unusedSettings refuses settings that do nothing for this kind of source:
// the user believes they apply.
func (c *cli) unusedSettings(kind render.Kind, dir string, unused []string) error {
	var parts []string
	for _, u := range unused {
		parts = append(parts, fmt.Sprintf("%s applies to %s only", c.names.of(u), render.Applies(u)))
	}
	msg := fmt.Sprintf("%s is a %s source, so these settings would do nothing: %s", dir, kind, strings.Join(parts, "; "))
	if c.names.plugin {
		return configError{errors.New(msg + "; remove them from the Application")}
	}
	return usageError{errors.New(msg + "; remove them")}
}

// warnUnserved warns once per apiVersion and kind that a selected release
// does not serve while other checked releases of the operator do: the API
// server rejects such objects.
func (c *cli) warnUnserved(res []*operators.Resolution, objs []manifest.Object) {
	if c.unservedSeen == nil {
		c.unservedSeen = map[string]bool{}
	}
	for _, ob := range objs {
		av, _ := ob.Data["apiVersion"].(string)
		k, _ := ob.Data["kind"].(string)
		if c.unservedSeen[av+" "+k] {
			continue
		}
		c.unservedSeen[av+" "+k] = true
		for _, r := range res {
			if msg := r.Unserved(c.store, av, k); msg != "" {
				fmt.Fprintf(c.errw, "Warning: %s: %s\n", ob.Where(), msg)
			}
		}
	}
}

// warnUnservedKinds compares the selected profiles with KUBE_API_VERSIONS:
// a kind the cluster does not serve hints at the wrong operator release.
func (c *cli) warnUnservedKinds(res []*operators.Resolution) {
	if len(c.apiVersions) == 0 {
		return
	}
	served := map[string]bool{}
	for _, v := range c.apiVersions {
		served[v] = true
	}
	for _, r := range res {
		groups := map[string]bool{}
		missing := []string{}
		for _, rs := range r.Profile.Resources {
			groups[rs.Group] = true
			if !served[rs.APIVersion()] && !served[rs.APIVersion()+"/"+rs.Kind] {
				missing = append(missing, rs.APIVersion()+" "+rs.Kind)
			}
		}
		if len(missing) > 0 && len(missing) == len(r.Profile.Resources) {
			fmt.Fprintf(c.errw, "Warning: the cluster serves none of the kinds of %s (KUBE_API_VERSIONS); is the operator installed there?\n", r.Ref())
		} else if len(missing) > 0 {
			fmt.Fprintf(c.errw, "Warning: the cluster does not serve %s of %s (KUBE_API_VERSIONS)\n", strings.Join(missing, ", "), r.Ref())
		}
	}
}

// findRepoRoot is the nearest parent of dir holding .git, else dir.
func findRepoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func splitAll(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
