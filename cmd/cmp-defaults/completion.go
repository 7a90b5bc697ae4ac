package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
)

// addCompletion gives the completion command examples, and every --operator
// flag operator names and, after NAME@, the checked releases.
func (c *cli) addCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, sub := range root.Commands() {
		if sub.Name() == "completion" {
			for _, sh := range sub.Commands() {
				sh.Args = takes(0, 0, "no arguments")
			}
			sub.Example = `  # bash, this session:
  source <(cmp-defaults completion bash)
  # zsh, every session:
  cmp-defaults completion zsh > "${fpath[1]}/_cmp-defaults"
  # fish:
  cmp-defaults completion fish > ~/.config/fish/completions/cmp-defaults.fish`
		}
	}
	complete := func(cmd *cobra.Command, toComplete string, withRelease bool) ([]string, cobra.ShellCompDirective) {
		dirs, _ := cmd.Flags().GetStringArray("profiles-dir")
		comp, err := c.Complete(action.Operators{ProfileDirs: dirs}, toComplete, withRelease)
		d := cobra.ShellCompDirectiveNoFileComp
		if err != nil {
			return nil, d
		}
		if comp.Releases {
			d |= cobra.ShellCompDirectiveKeepOrder
		}
		if comp.Partial {
			d |= cobra.ShellCompDirectiveNoSpace
		}
		return comp.Values, d
	}
	// releaseArgs completes the first n arguments as releases, then files.
	releaseArgs := func(n int) cobra.CompletionFunc {
		return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) >= n {
				return nil, cobra.ShellCompDirectiveDefault
			}
			// The second release of diff-releases is one of the first's operator.
			if op, _, ok := strings.Cut(strings.Join(args, " "), "@"); ok && len(args) == 1 && !strings.Contains(toComplete, "@") {
				toComplete = op + "@"
			}
			return complete(cmd, toComplete, true)
		}
	}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if f := cmd.Flags().Lookup("operator"); f != nil {
			withRelease := f.Value.Type() == "stringArray"
			_ = cmd.RegisterFlagCompletionFunc("operator", func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return complete(cmd, toComplete, withRelease)
			})
		}
		switch cmd.CommandPath() {
		case "cmp-defaults diff-releases":
			cmd.ValidArgsFunction = releaseArgs(2)
		case "cmp-defaults profiles show":
			cmd.ValidArgsFunction = releaseArgs(1)
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
