package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// flagError makes a flag error a usage error; a value refused by its own
// check (-o) speaks without pflag's prefix.
func flagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	var ue action.UsageError
	var fe *report.FormatError
	if errors.As(err, &iv) && (errors.As(iv.Unwrap(), &ue) || errors.As(iv.Unwrap(), &fe)) {
		return action.UsageError{Err: iv.Unwrap()}
	}
	return action.UsageError{Err: err}
}

// addOutput adds -o/--output and its completion; the first allowed is the default.
func addOutput(cmd *cobra.Command, dst *string, what string, allowed []string) {
	*dst = allowed[0]
	cmd.Flags().VarP(&report.Format{Dst: dst, Allowed: allowed}, "output", "o", what+": "+report.OneOf(allowed))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
}

// addReportOutput adds -o for a report: text, json or yaml.
func addReportOutput(cmd *cobra.Command) {
	addOutput(cmd, new(string), "output format", report.ReportFormats)
}

func addProfileDirs(f *pflag.FlagSet, o *action.Operators) {
	f.StringArrayVar(&o.ProfileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default from $CMP_DEFAULTS_PROFILES_DIR, colon-separated)")
}

func addStrict(f *pflag.FlagSet, o *action.Operators) {
	f.BoolVar(&o.Strict, flagName(settings.Strict), false, "fail instead of warning: a release not checked (newer or unknown patch), a kind of its groups no release serves, fill of no objects")
}

func addOperators(f *pflag.FlagSet, o *action.Operators) {
	f.StringArrayVar(&o.Refs, flagName(settings.Operators), nil, "operator release whose admission defaults to fill, NAME@VERSION (repeatable), e.g. external-secrets@2.5.0")
	addProfileDirs(f, o)
	addStrict(f, o)
}

// addRendering adds --repo-root and --timeout, for commands that render.
func addRendering(f *pflag.FlagSet, r *action.Rendering) {
	f.StringVar(&r.RepoRoot, "repo-root", "", "repository root: nothing outside it is read (default: the nearest parent directory with .git)")
	f.DurationVar(&r.Timeout, flagName(settings.Timeout), settings.DefaultTimeout, "give up reading, rendering and filling the input after this long")
}

// addHelm adds the Helm settings as helm spells them, usages starting with
// forWhat; -n unless the command has a namespace of its own.
func addHelm(f *pflag.FlagSet, h *settings.Helm, forWhat string, namespace bool) {
	f.StringArrayVarP(&h.ValuesFiles, flagName(settings.ValuesFiles), "f", nil, forWhat+"Helm values file relative to the chart (repeatable; must stay inside the repository)")
	f.StringArrayVar(&h.Set, flagName(settings.Set), nil, forWhat+"Helm value KEY=VALUE (repeatable, like helm --set)")
	f.StringArrayVar(&h.SetString, flagName(settings.SetString), nil, forWhat+"Helm string value KEY=VALUE (repeatable, like helm --set-string)")
	f.StringArrayVar(&h.SetJSON, flagName(settings.SetJSON), nil, forWhat+"Helm JSON value KEY=JSON, or a JSON object (repeatable, like helm --set-json)")
	f.StringArrayVar(&h.SetFile, flagName(settings.SetFile), nil, forWhat+"Helm value KEY=FILE: the file's text, path as for --values (repeatable, like helm --set-file)")
	f.StringVar(&h.ReleaseName, flagName(settings.ReleaseName), "", forWhat+"Helm release name (default: the directory's name)")
	f.BoolVar(&h.SkipSchemaValidation, flagName(settings.SkipSchemaValidation), false, forWhat+"do not check values against the charts' values.schema.json (like helm --skip-schema-validation)")
	if namespace {
		f.StringVarP(&h.Namespace, flagName(settings.Namespace), "n", "", forWhat+"Helm release namespace (.Release.Namespace)")
	}
}

// flagName is the flag of s without its dashes.
func flagName(s *settings.Setting) string { return strings.TrimPrefix(s.Flag, "--") }

// addDirHelm adds the Helm settings for directory arguments.
func addDirHelm(f *pflag.FlagSet, h *settings.Helm) {
	addHelm(f, h, "directory arguments that are Helm charts: ", true)
}

func addCluster(f *pflag.FlagSet, o *cluster.Options) {
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&o.Context, "context", "", "kubeconfig context (default: the current context)")
	f.DurationVar(&o.Timeout, "request-timeout", cluster.DefaultTimeout, "timeout of each request to the API server")
	f.BoolVar(&o.NoExec, "no-exec-plugin", false, "refuse a kubeconfig whose user runs a credential plugin (users[].user.exec), which is otherwise run as kubectl runs it")
}

// addClusterSource adds the flags of check and profiles learn.
func addClusterSource(f *pflag.FlagSet, o *action.ClusterSource) {
	addOperators(f, &o.Operators)
	addCluster(f, &o.Cluster)
	f.StringVarP(&o.Namespace, "namespace", "n", "", "namespace of objects that have none, and Helm's release namespace (default: the context's namespace)")
	f.StringVar(&o.FieldManager, "field-manager", o.FieldManager, "field manager of the dry-run applies")
	f.BoolVar(&o.AllKinds, "all-kinds", false, "include built-in kinds (core, apps, *.k8s.io, ...), skipped by default")
	addRendering(f, &o.Rendering)
	addHelm(f, &o.Helm, "DIR source: ", false)
	f.StringVar(&o.Helm.KubeVersion, "kube-version", "", "Helm .Capabilities.KubeVersion (default: the cluster's version)")
	f.StringSliceVar(&o.Helm.APIVersions, "api-versions", nil, "Helm .Capabilities.APIVersions (default: what the cluster serves)")
}
