package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

func init() { extraCommands = append(extraCommands, (*cli).checkCmd) }

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
	values      []string
	set         []string
	setString   []string
	setJSON     []string
	setFile     []string
	releaseName string
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
	o.output = "text"
	cmd.Flags().Lookup("output").Usage = "output format: text or json"
	cmd.Flags().Lookup("output").DefValue = "text"
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
	f.StringVar(&o.repoRoot, "repo-root", "", "repository root for a DIR source; nothing outside it is read (default: DIR)")
	f.StringArrayVarP(&o.values, "values", "f", nil, "Helm values file, relative to DIR (repeatable)")
	f.StringArrayVar(&o.set, "set", nil, "Helm value K=V (repeatable)")
	f.StringArrayVar(&o.setString, "set-string", nil, "Helm string value K=V (repeatable)")
	f.StringArrayVar(&o.setJSON, "set-json", nil, "Helm JSON value K=JSON, or a JSON object (repeatable, like helm --set-json)")
	f.StringArrayVar(&o.setFile, "set-file", nil, "Helm value K=FILE: the file's text (repeatable, like helm --set-file)")
	f.StringVar(&o.releaseName, "release-name", "", "Helm release name (default: the base name of DIR)")
	f.StringVar(&o.kubeVersion, "kube-version", "", "Helm .Capabilities.KubeVersion (default: the cluster's version)")
	f.StringSliceVar(&o.apiVersions, "api-versions", nil, "Helm .Capabilities.APIVersions (default: what the cluster serves)")
}

// checkedObject is one object's report.
type checkedObject struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Namespace  string            `json:"namespace,omitempty"`
	Name       string            `json:"name"`
	Source     string            `json:"source"`
	Document   int               `json:"document"`
	Line       int               `json:"line"`
	Exists     bool              `json:"exists"`
	Filled     int               `json:"filled"`
	Skipped    string            `json:"skipped,omitempty"`
	Notes      []string          `json:"notes,omitempty"`
	Findings   []cluster.Finding `json:"findings"`
}

type checkReport struct {
	Cluster   string             `json:"cluster"`
	Context   string             `json:"context,omitempty"`
	Version   string             `json:"version"`
	Operators []explainSelection `json:"operators"`
	Objects   []checkedObject    `json:"objects"`
}

func (c *cli) runCheck(ctx context.Context, o *checkOptions, args []string) error {
	if o.output != "text" && o.output != "json" {
		return usagef("--output %q: use text or json", o.output)
	}
	if o.fieldManager == "" {
		return usagef("--field-manager must not be empty")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	e, res, err := c.engine(&o.common)
	if err != nil {
		return err
	}
	if len(o.operators) == 0 {
		fmt.Fprintln(c.errw, "Warning: no --operator selected: nothing is filled; check shows what the cluster adds to the manifests as written")
	}
	cl, ns, objs, err := c.clusterInputs(ctx, o, args)
	if err != nil {
		return err
	}

	raw := make([]map[string]any, len(objs))
	for i := range objs {
		raw[i] = copyJSONValue(objs[i].Data).(map[string]any)
	}
	fills := make([]map[string]cluster.FilledField, len(objs))
	if err := fillAll(e, objs, func(i int, f defaults.Filled) {
		if fills[i] == nil {
			fills[i] = map[string]cluster.FilledField{}
		}
		fills[i][f.Path] = cluster.FilledField{Value: f.Value, Rule: f.Rule, Origin: fmt.Sprintf("%s@%s (profile %s)", f.Origin.Operator, strings.TrimPrefix(f.Origin.Release, "v"), f.Origin.Profile)}
	}); err != nil {
		return err
	}

	rep := &checkReport{Cluster: cl.Host, Context: cl.Context, Version: cl.Version, Operators: checkSelections(res)}
	var errs []string
	for i, ob := range objs {
		co := checkedObject{Source: ob.Source, Document: ob.Doc, Line: ob.Line, Filled: len(fills[i]), Findings: []cluster.Finding{}}
		co.APIVersion, _ = ob.Data["apiVersion"].(string)
		co.Kind, _ = ob.Data["kind"].(string)
		md, _ := ob.Data["metadata"].(map[string]any)
		co.Name, _ = md["name"].(string)
		co.Namespace, _ = md["namespace"].(string)
		if !o.allKinds && builtInGroup(co.APIVersion) && !e.Covers(co.APIVersion, co.Kind) {
			co.Skipped = "built-in kind (use --all-kinds to check it)"
			rep.Objects = append(rep.Objects, co)
			continue
		}
		t, err := cl.Locate(ctx, ob.Data, ns)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %s: %v", ob.Where(), ob.ID(), err))
			if checkAbortsAll(err) {
				break
			}
			continue
		}
		co.Namespace, co.Exists = t.Namespace, t.Exists
		admitted, err := cl.DryRun(ctx, t, ob.Data, o.fieldManager)
		var admittedRaw *cluster.Admission
		if err == nil {
			admittedRaw, err = cl.DryRun(ctx, t, raw[i], o.fieldManager)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %s: %v", ob.Where(), ob.ID(), err))
			if checkAbortsAll(err) {
				break
			}
			continue
		}
		if admitted.ApplyRejected != "" {
			co.Notes = append(co.Notes, "server-side apply rejects the filled object (Argo CD's ServerSideApply=true sync would fail): "+admitted.ApplyRejected)
		}
		co.Findings = cluster.Compare(ob.Data, admitted.Object, admittedRaw.Object, fills[i])
		if co.Findings == nil {
			co.Findings = []cluster.Finding{}
		}
		rep.Objects = append(rep.Objects, co)
	}
	if len(errs) > 0 {
		return fmt.Errorf("check failed for %d object(s):\n  %s", len(errs), strings.Join(errs, "\n  "))
	}

	differ, fields := 0, 0
	for _, co := range rep.Objects {
		if len(co.Findings) > 0 {
			differ++
			fields += len(co.Findings)
		}
	}
	if o.output == "json" {
		if err := writeJSON(c.out, rep); err != nil {
			return err
		}
	} else {
		writeCheck(c.out, rep)
	}
	if differ > 0 {
		return foundError{fmt.Sprintf("%d object(s) differ from what %s stores (%d field(s)): the selected profiles do not match this cluster", differ, cl.Host, fields)}
	}
	return nil
}

// isFatal: errors that would repeat for every object.
func checkAbortsAll(err error) bool { return cluster.Fatal(err) }

func checkSelections(res []*operators.Resolution) []explainSelection {
	out := []explainSelection{}
	for _, r := range res {
		out = append(out, newSelection(r))
	}
	return out
}

// clusterInputs connects to the cluster and reads the source; ns is where
// objects without a namespace go.
func (c *cli) clusterInputs(ctx context.Context, o *checkOptions, args []string) (cl *cluster.Client, ns string, objs []manifest.Object, err error) {
	if cl, err = cluster.Connect(ctx, o.cluster.options()); err != nil {
		return nil, "", nil, err
	}
	if ns = o.namespace; ns == "" {
		ns = cl.Namespace
	}
	objs, err = c.checkInputs(ctx, o, cl, ns, args)
	return cl, ns, objs, err
}

// checkInputs renders DIR arguments and reads the rest like 'fill'.
func (c *cli) checkInputs(ctx context.Context, o *checkOptions, cl *cluster.Client, ns string, args []string) ([]manifest.Object, error) {
	if len(args) == 0 {
		return c.readInputs(nil)
	}
	var all []manifest.Object
	for _, a := range args {
		fi, err := os.Stat(a)
		if a == "-" || err != nil || !fi.IsDir() {
			objs, err := c.readInputs([]string{a})
			if err != nil {
				return nil, err
			}
			all = append(all, objs...)
			continue
		}
		opt := render.Options{
			Dir: a, RepoRoot: o.repoRoot,
			ValuesFiles: o.values, Set: o.set, SetString: o.setString, SetJSON: o.setJSON, SetFile: o.setFile,
			ReleaseName: o.releaseName, Namespace: ns,
			KubeVersion: o.kubeVersion, APIVersions: o.apiVersions,
		}
		if opt.ReleaseName == "" {
			abs, _ := filepath.Abs(a)
			opt.ReleaseName = filepath.Base(abs)
		}
		if opt.KubeVersion == "" {
			opt.KubeVersion = cl.Version
		}
		if opt.APIVersions == nil {
			if opt.APIVersions, err = cl.APIVersions(); err != nil {
				return nil, err
			}
		}
		objs, err := render.Render(ctx, opt)
		if err != nil {
			return nil, err
		}
		all = append(all, objs...)
	}
	return all, nil
}

// builtInGroup: API groups Kubernetes itself serves. Their defaults are
// Argo CD's business (it knows the built-in types); CRDs live in other
// groups (a CRD group must contain a dot and may not be a *.k8s.io group
// without an API review, which Gateway API and a few others have: those
// are checked because a selected profile covers them, or with --all-kinds).
func builtInGroup(apiVersion string) bool {
	group := ""
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	if !strings.Contains(group, ".") {
		return true // "", apps, batch, policy, autoscaling, extensions
	}
	switch group {
	case "gateway.networking.k8s.io", "snapshot.storage.k8s.io", "policy.networking.k8s.io", "multicluster.x-k8s.io":
		return false
	}
	return strings.HasSuffix(group, ".k8s.io")
}

func copyJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = copyJSONValue(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = copyJSONValue(e)
		}
		return s
	}
	return v
}

func writeCheck(w io.Writer, rep *checkReport) {
	ctx := ""
	if rep.Context != "" {
		ctx = ", context " + rep.Context
	}
	fmt.Fprintf(w, "# cluster %s (Kubernetes %s%s)\n", rep.Cluster, rep.Version, ctx)
	writeSelections(w, rep.Operators)
	ok, differ, skipped, fields := 0, 0, 0, 0
	for _, co := range rep.Objects {
		writeHeading(w, co.APIVersion, co.Kind, co.Namespace, co.Name, co.Source, co.Document, co.Line)
		switch {
		case co.Skipped != "":
			skipped++
			fmt.Fprintf(w, "  skipped: %s\n", co.Skipped)
			continue
		case len(co.Findings) == 0:
			ok++
			fmt.Fprintf(w, "  ok: the cluster stores the filled object unchanged (%d field(s) filled, each as the cluster defaults it)\n", co.Filled)
			continue
		}
		differ++
		fields += len(co.Findings)
		for _, n := range co.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, f := range co.Findings {
			fmt.Fprintf(w, "  %s\n", findingText(f))
			if f.Rule != "" {
				fmt.Fprintf(w, "      filled by %s from %s\n", f.Rule, f.Origin)
			}
		}
	}
	fmt.Fprintf(w, "\n%d object(s): %d match the cluster, %d differ (%d field(s)), %d skipped\n", len(rep.Objects), ok, differ, fields, skipped)
	if differ == 0 {
		return
	}
	for _, s := range rep.Operators {
		if s.Channel != "" {
			fmt.Fprintf(w, "note: %s has the %s channel's profiles; if the cluster runs another channel's CRDs (each CRD names its channel in an annotation), select that channel's operator\n", s.Operator, s.Channel)
		}
	}
}

func findingText(f cluster.Finding) string {
	switch f.Kind {
	case cluster.Added:
		return fmt.Sprintf("+ %s = %s  the cluster adds this field: no selected profile fills it", f.Path, checkJSONText(f.Cluster))
	case cluster.Removed:
		return fmt.Sprintf("- %s = %s  the cluster drops this field", f.Path, checkJSONText(f.Value))
	case cluster.Changed:
		return fmt.Sprintf("~ %s = %s  the cluster stores %s", f.Path, checkJSONText(f.Value), checkJSONText(f.Cluster))
	case cluster.NotDefaulted:
		return fmt.Sprintf("! %s = %s  filled, but this cluster does not default it", f.Path, checkJSONText(f.Value))
	case cluster.WrongDefault:
		return fmt.Sprintf("≠ %s = %s  filled, but this cluster defaults %s", f.Path, checkJSONText(f.Value), checkJSONText(f.Cluster))
	}
	return f.Kind + " " + f.Path
}

func checkJSONText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
