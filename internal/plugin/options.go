package plugin

import "github.com/cmp-defaults/cmp-defaults/internal/render"

// RenderOptions is how generate renders the application for this
// configuration; audit renders an Application's source the same way.
func (c *Config) RenderOptions() render.Options {
	return render.Options{Dir: c.AppDir, RepoRoot: c.RepoRoot, Include: c.Include, Exclude: c.Exclude,
		ValuesFiles: c.ValuesFiles, Values: c.Values, Set: c.Set, ReleaseName: c.ReleaseName,
		Namespace: c.Namespace, KubeVersion: c.KubeVersion, APIVersions: c.APIVersions}
}
