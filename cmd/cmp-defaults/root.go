package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/catalog"
)

// cli binds flags onto the use cases of internal/action and runs them.
type cli struct {
	action.Env
	Stderr io.Writer // for usage text printed before an error
	result *action.Result
	format string // the -o of the command that ran (report.Write)
}

// useCase is a use case of internal/action.
type useCase interface {
	Run(context.Context, *action.Env) (*action.Result, error)
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
  cmp-defaults audit examples/argocd/app.yaml --operator external-secrets@2.5.0`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.AddCommand(c.generateCmd(), c.renderCmd(), c.fillCmd(), c.explainCmd(), c.checkCmd(), c.diffReleasesCmd(),
		c.auditCmd(), c.previewCmd(), c.profilesCmd(), c.parametersCmd(), c.versionCmd())
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("cmp-defaults {{.Version}}\n")
	c.addCompletion(root)
	groupArgs(root)
	return root
}

// groupArgs makes a command that only groups others (profiles, completion)
// refuse an unknown subcommand (exit 2), where cobra prints help and succeeds.
func groupArgs(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		groupArgs(sub)
	}
	if cmd.HasParent() && cmd.HasSubCommands() && !cmd.Runnable() {
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			var names []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			return action.Usagef("unknown command %q for %q; one of: %s", args[0], cmd.CommandPath(), strings.Join(names, ", "))
		}
	}
}

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func buildVersion() string { return catalog.BuildVersion(version) }

// takes refuses other than min to max arguments (-1: no limit), saying what.
func takes(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		return action.ArgCount(cmd.CommandPath(), args, min, max, what)
	}
}

// runs is the RunE of a use case; set puts the arguments into it.
func (c *cli) runs(uc useCase, set func(args []string)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		set(args)
		return c.run(cmd, uc)
	}
}

// run runs uc and keeps its result and the command's -o for present.
func (c *cli) run(cmd *cobra.Command, uc useCase) error {
	if f := cmd.Flags().Lookup("output"); f != nil {
		c.format = f.Value.String()
	}
	var err error
	c.result, err = uc.Run(cmd.Context(), &c.Env)
	return err
}

// stdinIsTerminal is swapped in tests.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runsOnInput is the RunE of a use case reading FILE, DIR and '-' arguments
// into *to: with none and a terminal on stdin it prints the usage (exit 2)
// instead of waiting silently for typed manifests; '-' still reads it.
func (c *cli) runsOnInput(uc useCase, to *[]string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 && stdinIsTerminal(c.Stdin) {
			fmt.Fprint(c.Stderr, cmd.UsageString())
			return action.Usagef("no input: name files or directories, or '-' to read stdin")
		}
		*to = args
		return c.run(cmd, uc)
	}
}
