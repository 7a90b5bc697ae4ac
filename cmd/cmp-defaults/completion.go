package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cmp-defaults/cmp-defaults/internal/catalog"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// addCompletion sets up shell completion: the completion command gets
// examples, and every --operator flag completes operator names and, after
// NAME@, the checked releases.
func (c *cli) addCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, sub := range root.Commands() {
		if sub.Name() == "completion" {
			sub.Example = `  # bash, this session:
  source <(cmp-defaults completion bash)
  # zsh, every session:
  cmp-defaults completion zsh > "${fpath[1]}/_cmp-defaults"
  # fish:
  cmp-defaults completion fish > ~/.config/fish/completions/cmp-defaults.fish`
		}
	}
	releaseArgs := func(n int) cobra.CompletionFunc {
		return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) >= n {
				return nil, cobra.ShellCompDirectiveDefault // files and directories
			}
			return completeOperators(c.profileDirsOf(cmd.Flags()), toComplete, true)
		}
	}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if f := cmd.Flags().Lookup("operator"); f != nil {
			withRelease := f.Value.Type() == "stringArray"
			_ = cmd.RegisterFlagCompletionFunc("operator", func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return completeOperators(c.profileDirsOf(cmd.Flags()), toComplete, withRelease)
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

func (c *cli) profileDirsOf(fs *pflag.FlagSet) []string {
	o := common{}
	if dirs, err := fs.GetStringArray("profiles-dir"); err == nil {
		o.profileDirs = dirs
	}
	return c.dirs(&o)
}

// completeOperators offers "NAME@" for names, then "NAME@VERSION" for the
// checked releases of NAME, newest first.
func completeOperators(dirs []string, toComplete string, withRelease bool) ([]string, cobra.ShellCompDirective) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS, Dirs: dirs})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	comp, err := catalog.Complete(st, toComplete, withRelease)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	d := cobra.ShellCompDirectiveNoFileComp
	if comp.Releases {
		d |= cobra.ShellCompDirectiveKeepOrder
	}
	if comp.Partial {
		d |= cobra.ShellCompDirectiveNoSpace
	}
	return comp.Values, d
}
