package action

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"
)

// chartIndex is what preview reads of a Helm repository's index.yaml.
// Helm's own reader (pkg/repo) would bring its getters, plugin runtime
// (WebAssembly) and registry credential helpers into the sidecar binary,
// which never downloads anything: preview reads the few fields it needs.
type chartIndex struct {
	APIVersion string                    `json:"apiVersion"`
	Entries    map[string][]chartVersion `json:"entries"`
}

// chartVersion is one entry of a chart in the index.
type chartVersion struct {
	Version string   `json:"version"`
	URLs    []string `json:"urls"`
	Digest  string   `json:"digest"`
}

var errNoChart = errors.New("no chart of that name")

// parseChartIndex reads an index.yaml; its entries newest first.
func parseChartIndex(b []byte) (*chartIndex, error) {
	var idx chartIndex
	if err := yaml.Unmarshal(b, &idx); err != nil {
		return nil, err
	}
	if idx.APIVersion == "" {
		return nil, errors.New("no apiVersion: not a Helm repository index")
	}
	for _, vs := range idx.Entries {
		slices.SortStableFunc(vs, func(a, b chartVersion) int { return compareVersions(b.Version, a.Version) })
	}
	return &idx, nil
}

// compareVersions orders semantic versions by precedence, and puts a
// version that is not one below every one that is.
func compareVersions(a, b string) int {
	va, erra := semver.NewVersion(a)
	vb, errb := semver.NewVersion(b)
	switch {
	case erra != nil && errb != nil:
		return strings.Compare(a, b)
	case erra != nil:
		return -1
	case errb != nil:
		return 1
	}
	return va.Compare(vb)
}

// get is the version of chart that want names, as helm resolves a
// --version: a version listed exactly as written, else the newest that
// satisfies want as a semver constraint ("" is any).
func (idx *chartIndex) get(chart, want string) (*chartVersion, error) {
	vs, ok := idx.Entries[chart]
	if !ok || len(vs) == 0 {
		return nil, errNoChart
	}
	for i := range vs {
		if want != "" && vs[i].Version == want {
			return &vs[i], nil
		}
	}
	if want == "" {
		want = "*"
	}
	c, err := semver.NewConstraint(want)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a listed version nor a semver constraint: %w", want, err)
	}
	for i := range vs {
		if v, err := semver.NewVersion(vs[i].Version); err == nil && c.Check(v) {
			return &vs[i], nil
		}
	}
	return nil, fmt.Errorf("none of the %d versions of %s satisfies %q", len(vs), chart, want)
}

// chartURL is where an index entry's URL points: as written when
// absolute, else relative to the repository (repoURL as a directory).
func chartURL(repoURL, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil || r.IsAbs() {
		return ref, err
	}
	base, err := url.Parse(repoURL)
	if err != nil {
		return "", err
	}
	query := base.RawQuery
	base.Path = strings.TrimSuffix(base.Path, "/") + "/"
	base.RawPath = ""
	u := base.ResolveReference(r)
	u.RawQuery = query
	return u.String(), nil
}
