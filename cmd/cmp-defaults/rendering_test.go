package main

import (
	"strings"
	"testing"
)

// Every command that renders a source directory takes the same
// --repo-root and --timeout, from one flag set: same usage, same default.
func TestRenderingFlagsShared(t *testing.T) {
	root := (&cli{}).root()
	var repoUsage, timeoutUsage, timeoutDefault string
	for _, path := range []string{"render", "fill", "explain", "diff-releases", "audit", "check", "profiles learn"} {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		repo, timeout := cmd.Flags().Lookup("repo-root"), cmd.Flags().Lookup("timeout")
		if repo == nil || timeout == nil {
			t.Errorf("%s: --repo-root %v, --timeout %v; want both", path, repo != nil, timeout != nil)
			continue
		}
		if repoUsage == "" {
			repoUsage, timeoutUsage, timeoutDefault = repo.Usage, timeout.Usage, timeout.DefValue
		}
		if repo.Usage != repoUsage || timeout.Usage != timeoutUsage || timeout.DefValue != timeoutDefault {
			t.Errorf("%s: --repo-root %q, --timeout %q (default %s); want what render says: %q, %q (default %s)",
				path, repo.Usage, timeout.Usage, timeout.DefValue, repoUsage, timeoutUsage, timeoutDefault)
		}
	}
}
