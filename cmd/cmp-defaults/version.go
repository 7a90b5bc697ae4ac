package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

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

func (c *cli) versionCmd() *cobra.Command {
	var o common
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the shipped profile ranges",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(c.out, "cmp-defaults %s (%s, %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			st, err := o.store()
			if err != nil {
				return err
			}
			sums, err := st.Summaries()
			if err != nil {
				return err
			}
			for _, s := range sums {
				fmt.Fprintf(c.out, "profiles: %s %s..%s (%d releases checked, %d profiles)\n", s.Operator, s.Oldest, s.Newest, s.Releases, len(s.Profiles))
			}
			return nil
		},
	}
}
