package catalog

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

// Version is what 'version' prints: the build and the profile ranges.
type Version struct {
	Version   string     `json:"version"`
	GoVersion string     `json:"goVersion"`
	Platform  string     `json:"platform"`
	Profiles  []Coverage `json:"profiles"`
}

// Coverage is the range of releases one operator's profiles check.
type Coverage struct {
	Operator string `json:"operator"`
	Oldest   string `json:"oldest"`
	Newest   string `json:"newest"`
	Releases int    `json:"releasesChecked"`
	Profiles int    `json:"profiles"`
}

// BuildVersion is the version of this build: ldflags (set with -ldflags
// "-X main.version=..."), else what the build info records.
func BuildVersion(ldflags string) string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(ldflags, bi)
}

// versionOf is the version set with -ldflags, else the main module's version
// from the build info (what 'go install .../cmd/cmp-defaults@v1.2.3' records),
// else "dev".
func versionOf(ldflags string, bi *debug.BuildInfo) string {
	if ldflags != "" {
		return ldflags
	}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// VersionOf describes build version v and the operators of st.
func VersionOf(st *operators.Store, v string) (*Version, error) {
	sums, err := st.Summaries()
	if err != nil {
		return nil, err
	}
	out := &Version{Version: v, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Profiles: []Coverage{}}
	for _, s := range sums {
		out.Profiles = append(out.Profiles, Coverage{Operator: s.Operator, Oldest: s.Oldest, Newest: s.Newest, Releases: s.Releases, Profiles: len(s.Profiles)})
	}
	return out, nil
}

// WriteJSON prints v as JSON.
func (v *Version) WriteJSON(w io.Writer) error { return report.WriteJSON(w, v) }

// WriteText prints the version line, then a line per operator.
func (v *Version) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "cmp-defaults %s (%s, %s)\n", v.Version, v.GoVersion, v.Platform)
	for _, p := range v.Profiles {
		if _, err := fmt.Fprintf(w, "profiles: %s %s..%s (%d releases checked, %d profiles)\n", p.Operator, p.Oldest, p.Newest, p.Releases, p.Profiles); err != nil {
			return err
		}
	}
	return nil
}
