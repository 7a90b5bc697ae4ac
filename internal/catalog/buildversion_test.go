package catalog

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	installed := &debug.BuildInfo{Path: "github.com/cmp-defaults/cmp-defaults/cmd/cmp-defaults",
		Main: debug.Module{Path: "github.com/cmp-defaults/cmp-defaults", Version: "v1.2.3"}}
	for _, c := range []struct {
		name, ldflags string
		bi            *debug.BuildInfo
		want          string
	}{
		{"go install @v1.2.3", "", installed, "v1.2.3"},
		{"-X main.version wins", "v9.9.9", installed, "v9.9.9"},
		{"built in a work tree without VCS", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build info", "", nil, "dev"},
	} {
		if got := versionOf(c.ldflags, c.bi); got != c.want {
			t.Errorf("%s: versionOf = %q, want %q", c.name, got, c.want)
		}
	}
}
