package render

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// maxLocalDepth bounds the nesting of file:// dependencies.
const maxLocalDepth = 10

// addLocalDependencies does offline what `helm dependency build` does for
// the dependencies of ch (read from dir) that Chart.yaml takes from a
// local directory (repository: file://...) and charts/ lacks: each is
// loaded from its directory, which must lie inside the repository root and
// is read under the same symbolic-link checks and byte budget as the chart,
// and checked against the version constraint. Their own file://
// dependencies are added the same way. Other missing dependencies are left
// to checkDependencies, which refuses them.
func addLocalDependencies(ctx context.Context, opt Options, ch *chart.Chart, dir string, depth int) error {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, d := range ch.Metadata.Dependencies {
		if d == nil || have[d.Name] || !strings.HasPrefix(d.Repository, "file://") {
			continue
		}
		what := fmt.Sprintf("dependency %s (repository %s) of chart %s", d.Name, d.Repository, rel(opt.RepoRoot, dir))
		if depth >= maxLocalDepth {
			return fmt.Errorf("%s: file:// dependencies nest more than %d deep", what, maxLocalDepth)
		}
		p := strings.TrimPrefix(d.Repository, "file://")
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		real, err := checkInside(opt.RepoRoot, p, what)
		if err != nil {
			return err
		}
		shown := rel(opt.RepoRoot, real)
		if err := checkSymlinks(ctx, opt.RepoRoot, real); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := scanChart(ctx, real, shown, opt.budget); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		sub, err := loader.LoadDir(real)
		if err != nil {
			return fmt.Errorf("%s: loading %s: %w", what, shown, err)
		}
		if sub.Metadata == nil || sub.Name() != d.Name {
			return fmt.Errorf("%s: the chart in %s is named %q, not %q", what, shown, sub.Name(), d.Name)
		}
		if err := checkVersion(d.Version, sub.Metadata.Version); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		if err := addLocalDependencies(ctx, opt, sub, real, depth+1); err != nil {
			return err
		}
		ch.AddDependency(sub)
		have[d.Name] = true
	}
	return nil
}

// checkVersion says whether version satisfies the constraint of
// Chart.yaml, as helm's resolver does for a local chart.
func checkVersion(constraint, version string) error {
	if constraint == "" {
		return nil
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return fmt.Errorf("version %q is not a valid constraint: %v", constraint, err)
	}
	v, err := semver.NewVersion(version)
	if err != nil {
		return fmt.Errorf("the local chart's version %q is not a semantic version: %v", version, err)
	}
	if !c.Check(v) {
		return fmt.Errorf("the local chart has version %s, which does not satisfy %q; fix the version in one of the two Chart.yaml files", version, constraint)
	}
	return nil
}
