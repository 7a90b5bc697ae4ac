package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/pipeline"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
)

// cli carries what every command shares.
type cli struct {
	stdin io.Reader
	out   *bytes.Buffer // stdout, written only when the command succeeds
	errw  io.Writer

	names       names             // how messages name settings: flags, or generate's parameters
	store       *operators.Store  // the profiles of the last engine built
	unserved    pipeline.Unserved // apiVersion and kind already warned about
	src         *sourceFlags      // Helm settings for directory arguments
	maxInput    int64             // bytes per input file or stdin, and per render
	maxMemory   int64             // heap bytes of the whole run (guard.Watch)
	limits      manifest.Limits
	profileDirs []string        // CMP_DEFAULTS_PROFILES_DIR, when no --profiles-dir is given
	ctx         context.Context // ends on SIGINT, SIGTERM or when the memory budget is exceeded
}

// readEnv takes the limits and profile directories from the process's
// environment (the sidecar's, under Argo CD), once for the run.
func (c *cli) readEnv() error {
	s, err := plugin.SidecarFromEnv(os.Environ())
	if err != nil {
		return limitsError{err}
	}
	c.maxInput, c.maxMemory, c.limits, c.profileDirs = s.MaxInput, s.MaxMemory, s.Limits, s.ProfileDirs
	c.limits.Warn = func(m string) { c.warn(m) }
	return nil
}

// limitsError is a bad limit in the environment (exit 2, no usage hint).
type limitsError struct{ error }

// common are the flags shared by commands that fill.
type common struct {
	operators   []string
	profileDirs []string
	strict      bool
	output      outputFormat
}

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
	}
	root.AddCommand(
		c.generateCmd(),
		c.renderCmd(),
		c.fillCmd(),
		c.explainCmd(),
		c.checkCmd(),
		c.diffReleasesCmd(),
		c.auditCmd(),
		c.profilesCmd(),
		c.parametersCmd(),
		c.versionCmd(),
	)
	root.SetFlagErrorFunc(flagError)
	root.Version = buildVersion()
	root.SetVersionTemplate("cmp-defaults {{.Version}}\n")
	c.addCompletion(root)
	usageArgs(root)
	return root
}

// usageArgs makes the argument checks of cmd and its subcommands return
// usage errors, told apart by their type rather than their text.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ue usageError
			if err != nil && !errors.As(err, &ue) {
				return usageError{err}
			}
			return err
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}

func addCommon(cmd *cobra.Command, o *common) {
	f := cmd.Flags()
	f.StringArrayVar(&o.operators, "operator", nil, "operator release whose admission defaults to fill, NAME@VERSION (repeatable), e.g. external-secrets@2.5.0")
	f.StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default from $CMP_DEFAULTS_PROFILES_DIR, colon-separated)")
	f.BoolVar(&o.strict, "strict", false, "fail instead of warning when a release was not checked (newer or unknown patch)")
}

// dirs are the profile directories: --profiles-dir, else the environment's.
func (c *cli) dirs(o *common) []string {
	if len(o.profileDirs) > 0 {
		return o.profileDirs
	}
	return c.profileDirs
}

func (c *cli) loadStore(o *common) (*operators.Store, error) {
	return pipeline.LoadStore(c.dirs(o))
}

// engine resolves the selected operator releases and compiles their rules.
// Warnings go to stderr once.
func (c *cli) engine(o *common) (*defaults.Engine, []*operators.Resolution, error) {
	return c.engineFor(o, o.operators)
}

func (c *cli) engineFor(o *common, refs []string) (*defaults.Engine, []*operators.Resolution, error) {
	return c.load(c.selection(o, refs))
}

// selection is the releases refs name, with the command's profile
// directories and strictness.
func (c *cli) selection(o *common, refs []string) operators.Selection {
	return operators.Selection{Refs: plugin.SplitList(refs...), Dirs: c.dirs(o), Strict: o.strict}
}

// load builds the engine of sel (pipeline.LoadSelection); its errors name
// the setting to change.
func (c *cli) load(sel operators.Selection) (*defaults.Engine, []*operators.Resolution, error) {
	l, err := pipeline.LoadSelection(c.ctx, sel, func(m string) { c.warn(m) })
	if l != nil {
		c.store = l.Store
	}
	if err != nil {
		return nil, nil, c.names.selectionError(err)
	}
	return l.Engine, l.Releases, nil
}

// resolveAll resolves refs in st (kept for profiles.go).
func (n names) resolveAll(st *operators.Store, refs []string, strict bool) ([]*operators.Resolution, error) {
	res, err := operators.Selection{Refs: plugin.SplitList(refs...), Strict: strict}.Resolve(st)
	if err != nil {
		return nil, n.selectionError(err)
	}
	return res, nil
}

// stdinIsTerminal is swapped in tests.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// needInput refuses to wait silently for a person to type manifests: with
// no argument and a terminal on stdin, it prints the usage (exit 2). '-'
// still reads the terminal.
func (c *cli) needInput(cmd *cobra.Command, args []string) error {
	if len(args) > 0 || !stdinIsTerminal(c.stdin) {
		return nil
	}
	fmt.Fprint(c.errw, cmd.UsageString())
	return usagef("no input: name files or directories, or '-' to read stdin")
}

// inputs reads the command's arguments; directories render with the
// command's source flags.
func (c *cli) inputs() *input.Reader {
	return &input.Reader{Stdin: c.stdin, MaxBytes: c.maxInput, Limits: c.limits, Dir: c.renderDir}
}
