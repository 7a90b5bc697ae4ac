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

// versionInfo is what 'version -o json' prints.
type versionInfo struct {
	Version   string            `json:"version"`
	GoVersion string            `json:"goVersion"`
	Platform  string            `json:"platform"`
	Profiles  []profileCoverage `json:"profiles"`
}

type profileCoverage struct {
	Operator string `json:"operator"`
	Oldest   string `json:"oldest"`
	Newest   string `json:"newest"`
	Releases int    `json:"releasesChecked"`
	Profiles int    `json:"profiles"`
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
			if o.output != "text" && o.output != "json" {
				return usagef("--output %q: use text or json", o.output)
			}
			st, err := o.store()
			if err != nil {
				return err
			}
			v := versionInfo{Version: buildVersion(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Profiles: []profileCoverage{}}
			sums, err := st.Summaries()
			if err != nil {
				return err
			}
			for _, s := range sums {
				v.Profiles = append(v.Profiles, profileCoverage{Operator: s.Operator, Oldest: s.Oldest, Newest: s.Newest, Releases: s.Releases, Profiles: len(s.Profiles)})
			}
			if o.output == "json" {
				return writeJSON(c.out, v)
			}
			fmt.Fprintf(c.out, "cmp-defaults %s (%s, %s)\n", v.Version, v.GoVersion, v.Platform)
			for _, p := range v.Profiles {
				fmt.Fprintf(c.out, "profiles: %s %s..%s (%d releases checked, %d profiles)\n", p.Operator, p.Oldest, p.Newest, p.Releases, p.Profiles)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "text", "output format: text or json")
	return cmd
}
