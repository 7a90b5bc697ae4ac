package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/check"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// clusterFlags select a cluster.
type clusterFlags struct {
	kubeconfig string
	context    string
	timeout    time.Duration
}

func (f *clusterFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)")
	fl.StringVar(&f.context, "context", "", "kubeconfig context (default: the current context)")
	fl.DurationVar(&f.timeout, "request-timeout", 30*time.Second, "timeout of each request to the API server")
}

func (f *clusterFlags) options() cluster.Options {
	return cluster.Options{Kubeconfig: f.kubeconfig, Context: f.context, Timeout: f.timeout}
}

type checkOptions struct {
	common
	cluster      clusterFlags
	namespace    string
	fieldManager string
	allKinds     bool
	// render
	repoRoot    string
	helm        sourceFlags // its namespace is unused: -n is namespace above
	kubeVersion string
	apiVersions []string
}

func (c *cli) checkCmd() *cobra.Command {
	var o checkOptions
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

Each object is dry-run twice, as filled and as written. An object that does not exist yet
is server-side applied (dry run) with field manager argocd-controller, like Argo CD's sync;
one that exists is created (dry run) under a generated name, so that fields of the stored
object do not blur what admission does. Built-in kinds (core, apps, *.k8s.io, ...) are
skipped unless --all-kinds: Argo CD knows their defaults. The cluster identity needs the
verbs get, create and patch on the checked resources.

Exit codes: 0 every object matches, 3 some object differs, 1 error, 2 usage.`,
		Example: `  cmp-defaults check --kubeconfig ~/.kube/config --context prod --operator external-secrets@2.5.0 apps/datadog
  helm template my-chart | cmp-defaults check --operator cert-manager@1.19.1 -o json -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.runCheck(cmd.Context(), &o, args)
		},
	}
	addCommon(cmd, &o.common)
	addOutput(cmd, &o.output, "output format", "text", "json")
	addClusterSource(cmd, &o)
	return cmd
}

// addClusterSource adds the flags of commands that read a source and ask
// a cluster about it ('check', 'profiles learn').
func addClusterSource(cmd *cobra.Command, o *checkOptions) {
	o.cluster.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.namespace, "namespace", "n", "", "namespace of objects that have none, and Helm's release namespace (default: the context's namespace)")
	f.StringVar(&o.fieldManager, "field-manager", "argocd-controller", "field manager of the dry-run applies")
	f.BoolVar(&o.allKinds, "all-kinds", false, "include built-in kinds (core, apps, *.k8s.io, ...), skipped by default")
	f.StringVar(&o.repoRoot, "repo-root", "", "repository root for a DIR source; nothing outside it is read (default: nearest parent with .git, else DIR)")
	f.StringArrayVarP(&o.helm.values, "values", "f", nil, "Helm values file, relative to DIR (repeatable)")
	f.StringArrayVar(&o.helm.set, "set", nil, "Helm value K=V (repeatable)")
	f.StringArrayVar(&o.helm.setString, "set-string", nil, "Helm string value K=V (repeatable)")
	f.StringArrayVar(&o.helm.setJSON, "set-json", nil, "Helm JSON value K=JSON, or a JSON object (repeatable, like helm --set-json)")
	f.StringArrayVar(&o.helm.setFile, "set-file", nil, "Helm value K=FILE: the file's text (repeatable, like helm --set-file)")
	f.StringVar(&o.helm.releaseName, "release-name", "", "Helm release name (default: the base name of DIR)")
	f.StringVar(&o.kubeVersion, "kube-version", "", "Helm .Capabilities.KubeVersion (default: the cluster's version)")
	f.StringSliceVar(&o.apiVersions, "api-versions", nil, "Helm .Capabilities.APIVersions (default: what the cluster serves)")
}

func (c *cli) runCheck(ctx context.Context, o *checkOptions, args []string) error {
	if o.fieldManager == "" {
		return usagef("--field-manager must not be empty")
	}
	e, res, err := c.engine(&o.common)
	if err != nil {
		return err
	}
	if len(o.operators) == 0 {
		c.warn("no --operator selected: nothing is filled; check shows what the cluster adds to the manifests as written")
	}
	cl, ns, objs, err := c.clusterInputs(ctx, o, args)
	if err != nil {
		return err
	}
	rep, err := check.Run(ctx, cl, e, res, objs, check.Options{Namespace: ns, FieldManager: o.fieldManager, AllKinds: o.allKinds})
	if err != nil {
		return err
	}
	if o.output.json() {
		err = check.WriteJSON(c.out, rep)
	} else {
		check.WriteText(c.out, rep)
	}
	if msg := rep.Summary(cl.Host); err == nil && msg != "" {
		return foundError{msg}
	}
	return err
}

// clusterInputs connects to the cluster and reads the source; ns is where
// objects without a namespace go.
func (c *cli) clusterInputs(ctx context.Context, o *checkOptions, args []string) (cl *cluster.Client, ns string, objs []manifest.Object, err error) {
	if cl, err = cluster.Connect(ctx, o.cluster.options()); err != nil {
		return nil, "", nil, err
	}
	ns = check.Namespace(o.namespace, cl)
	objs, err = c.checkInputs(ctx, o, cl, ns, args)
	return cl, ns, objs, err
}

// checkInputs renders DIR arguments and reads the rest like 'fill'.
func (c *cli) checkInputs(ctx context.Context, o *checkOptions, cl *cluster.Client, ns string, args []string) ([]manifest.Object, error) {
	r := c.inputs()
	r.Dir = func(dir string) ([]manifest.Object, error) {
		opt, err := c.checkSourceOptions(o, dir, ns, cl)
		if err != nil {
			return nil, err
		}
		return render.Render(ctx, opt)
	}
	return r.All(args)
}

// checkSourceOptions renders a DIR as the cluster would see it: Helm's
// capabilities default to the cluster's version and API versions.
func (c *cli) checkSourceOptions(o *checkOptions, dir, ns string, cl *cluster.Client) (render.Options, error) {
	opt, err := render.NewOptions(dir, o.repoRoot, c.maxInput)
	if err != nil {
		return opt, err
	}
	o.helm.apply(&opt)
	return check.SourceOptions(opt, ns, o.kubeVersion, o.apiVersions, cl)
}
