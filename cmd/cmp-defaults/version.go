package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/catalog"
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
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and the shipped profile ranges",
		Example: `  cmp-defaults version
  cmp-defaults version -o json
  cmp-defaults --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := c.loadStore(&o)
			if err != nil {
				return err
			}
			v, err := catalog.VersionOf(st, buildVersion())
			if err != nil {
				return err
			}
			return c.print(&o.output, v)
		},
	}
	addOutput(cmd, &o.output, "output format", "text", "json")
	return cmd
}
