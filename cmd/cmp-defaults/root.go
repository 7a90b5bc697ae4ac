package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
)

// cli binds the commands' flags onto the use cases of internal/action and
// runs them with the invocation's Env.
type cli struct{ action.Env }

func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "cmp-defaults",
		Short: "Pre-fill the fields Kubernetes admission adds, so Argo CD diffs are clean",
		Long: `cmp-defaults renders manifests (plain YAML, Helm, Kustomize) and fills exactly the fields
that the API server will add on admission -- CRD schema defaults and known webhook defaults --
taken from versioned operator profiles. Desired state then equals what the cluster stores,
and Argo CD shows no drift without ignoreDifferences.

It runs as an Argo CD Config Management Plugin ('generate') and as a local CLI.`,
		Example: `  cmp-defaults render --operator external-secrets@2.5.0 examples/plain
  cmp-defaults explain --operator external-secrets@2.5.0 examples/plain/externalsecret.yaml
  cmp-defaults audit app.yaml --source examples/plain --operator external-secrets@2.5.0`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.AddCommand(c.generateCmd(), c.renderCmd(), c.fillCmd(), c.explainCmd(), c.checkCmd(), c.diffReleasesCmd(),
		c.auditCmd(), c.profilesCmd(), c.parametersCmd(), c.versionCmd())
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("cmp-defaults {{.Version}}\n")
	c.addCompletion(root)
	usageArgs(root)
	return root
}

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// usageArgs makes the argument checks of cmd and its subcommands return
// usage errors, told apart by their type rather than their text.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ue action.UsageError
			if err != nil && !errors.As(err, &ue) {
				return action.UsageError{Err: err}
			}
			return err
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}

// flagError makes a flag error a usage error; a value refused by its own
// check (as -o) speaks for itself without pflag's prefix.
func flagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	var ue action.UsageError
	if errors.As(err, &iv) && errors.As(iv.Unwrap(), &ue) {
		return ue
	}
	return action.UsageError{Err: err}
}

// outputFormat is -o/--output, checked when the flag is parsed against the
// formats its command writes.
type outputFormat struct {
	dst     *string
	allowed []string
}

// addOutput adds -o/--output, set into dst; the first allowed is the default.
func addOutput(cmd *cobra.Command, dst *string, what string, allowed ...string) {
	*dst = allowed[0]
	cmd.Flags().VarP(&outputFormat{dst, allowed}, "output", "o", what+": "+strings.Join(allowed, " or "))
}

func (o *outputFormat) String() string { return *o.dst }
func (o *outputFormat) Type() string   { return "string" }

func (o *outputFormat) Set(s string) error {
	if !slices.Contains(o.allowed, s) {
		return action.Usagef("--output %q: use %s", s, strings.Join(o.allowed, " or "))
	}
	*o.dst = s
	return nil
}

// runs is the RunE of a use case; set puts the arguments into it.
func (c *cli) runs(uc interface{ Run(*action.Env) error }, set func(args []string)) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		set(args)
		return uc.Run(&c.Env)
	}
}

// Flag sets shared by the commands, one per concern.

func addProfileDirs(f *pflag.FlagSet, o *action.Operators) {
	f.StringArrayVar(&o.ProfileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default from $CMP_DEFAULTS_PROFILES_DIR, colon-separated)")
}

func addStrict(f *pflag.FlagSet, o *action.Operators) {
	f.BoolVar(&o.Strict, "strict", false, "fail instead of warning when a release was not checked (newer or unknown patch)")
}

func addOperators(f *pflag.FlagSet, o *action.Operators) {
	f.StringArrayVar(&o.Refs, "operator", nil, "operator release whose admission defaults to fill, NAME@VERSION (repeatable), e.g. external-secrets@2.5.0")
	addProfileDirs(f, o)
	addStrict(f, o)
}

// addHelm adds the Helm settings as helm spells them; each usage starts
// with forWhat. -n is added unless the command has a namespace of its own.
func addHelm(f *pflag.FlagSet, h *action.Helm, forWhat string, namespace bool) {
	f.StringArrayVarP(&h.Values, "values", "f", nil, forWhat+"Helm values file relative to the chart (repeatable; must stay inside the repository)")
	f.StringArrayVar(&h.Set, "set", nil, forWhat+"Helm value KEY=VALUE (repeatable, like helm --set)")
	f.StringArrayVar(&h.SetString, "set-string", nil, forWhat+"Helm string value KEY=VALUE (repeatable, like helm --set-string)")
	f.StringArrayVar(&h.SetJSON, "set-json", nil, forWhat+"Helm JSON value KEY=JSON, or a JSON object (repeatable, like helm --set-json)")
	f.StringArrayVar(&h.SetFile, "set-file", nil, forWhat+"Helm value KEY=FILE: the file's text, path as for --values (repeatable, like helm --set-file)")
	f.StringVar(&h.ReleaseName, "release-name", "", forWhat+"Helm release name (default: the directory's name)")
	if namespace {
		f.StringVarP(&h.Namespace, "namespace", "n", "", forWhat+"Helm release namespace (.Release.Namespace)")
	}
}

// addDirHelm adds the Helm settings for directory arguments (fill,
// explain, diff-releases, audit --manifests).
func addDirHelm(f *pflag.FlagSet, h *action.Helm) {
	addHelm(f, h, "directory arguments that are Helm charts: ", true)
}

func addCluster(f *pflag.FlagSet, o *cluster.Options) {
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&o.Context, "context", "", "kubeconfig context (default: the current context)")
	f.DurationVar(&o.Timeout, "request-timeout", 30*time.Second, "timeout of each request to the API server")
}

// addClusterSource adds the flags of commands that read a source and ask
// a cluster about it ('check', 'profiles learn').
func addClusterSource(f *pflag.FlagSet, o *action.ClusterSource) {
	addOperators(f, &o.Operators)
	addCluster(f, &o.Cluster)
	f.StringVarP(&o.Namespace, "namespace", "n", "", "namespace of objects that have none, and Helm's release namespace (default: the context's namespace)")
	f.StringVar(&o.FieldManager, "field-manager", "argocd-controller", "field manager of the dry-run applies")
	f.BoolVar(&o.AllKinds, "all-kinds", false, "include built-in kinds (core, apps, *.k8s.io, ...), skipped by default")
	f.StringVar(&o.RepoRoot, "repo-root", "", "repository root for a DIR source; nothing outside it is read (default: nearest parent with .git, else DIR)")
	addHelm(f, &o.Helm, "DIR source: ", false)
	f.StringVar(&o.KubeVersion, "kube-version", "", "Helm .Capabilities.KubeVersion (default: the cluster's version)")
	f.StringSliceVar(&o.APIVersions, "api-versions", nil, "Helm .Capabilities.APIVersions (default: what the cluster serves)")
}

// stdinIsTerminal is swapped in tests.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runsOnInput is the RunE of a use case that reads FILE, DIR and '-'
// arguments into *to. It refuses to wait silently for a person to type
// manifests: with no argument and a terminal on stdin, it prints the usage
// (exit 2); '-' still reads the terminal.
func (c *cli) runsOnInput(uc interface{ Run(*action.Env) error }, to *[]string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 && stdinIsTerminal(c.Stdin) {
			fmt.Fprint(c.Stderr, cmd.UsageString())
			return action.Usagef("no input: name files or directories, or '-' to read stdin")
		}
		*to = args
		return uc.Run(&c.Env)
	}
}
