package action

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/preview"
)

// The files of a source's path the repo-server merges into the source
// (JSON merge patches), the second for one Application only.
const (
	sourceOverrides    = ".argocd-source.yaml"
	appSourceOverrides = ".argocd-source-%s.yaml"
)

// withOverrides is app with the override files of each source's path in
// dir merged into the source, as the repo-server merges them before it
// renders: only the settings of the renderers change, never the source's
// repoURL, path, chart or revision.
func withOverrides(env *Env, dir string, app *argocd.App) (*argocd.App, error) {
	spec, _ := app.Object["spec"].(map[string]any)
	if spec == nil || app.Origin.Kind != "Application" {
		return app, nil
	}
	instance := app.Origin.Name
	if ns := preview.AppNamespace(app); ns != "argocd" {
		instance = ns + "_" + instance
	}
	merge := func(src map[string]any) (map[string]any, bool, error) {
		p, _ := src["path"].(string)
		if p == "" || strings.Contains(p, "{{") || strings.HasPrefix(relSlash(dir, filepath.Join(dir, p)), "..") {
			return src, false, nil
		}
		changed := false
		for _, name := range []string{sourceOverrides, fmt.Sprintf(appSourceOverrides, instance)} {
			file := filepath.Join(dir, filepath.FromSlash(p), name)
			if fi, err := os.Stat(file); err != nil || fi.IsDir() {
				continue
			}
			b, err := manifest.ReadFile(file, env.Sidecar.MaxInput)
			if err != nil {
				return nil, false, err
			}
			patch, err := yaml.YAMLToJSON(b)
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w", relSlash(dir, file), err)
			}
			data, err := json.Marshal(src)
			if err != nil {
				return nil, false, err
			}
			if data, err = jsonpatch.MergePatch(data, patch); err != nil {
				return nil, false, fmt.Errorf("%s: %w", relSlash(dir, file), err)
			}
			merged := map[string]any{}
			if err := json.Unmarshal(data, &merged); err != nil {
				return nil, false, fmt.Errorf("%s: %w", relSlash(dir, file), err)
			}
			for _, k := range []string{"repoURL", "path", "chart", "targetRevision"} {
				if v, ok := src[k]; ok {
					merged[k] = v
				} else {
					delete(merged, k)
				}
			}
			src, changed = merged, true
		}
		return src, changed, nil
	}
	obj := maps.Clone(app.Object)
	spec = maps.Clone(spec)
	obj["spec"] = spec
	overridden := false
	if src, ok := spec["source"].(map[string]any); ok {
		m, changed, err := merge(src)
		if err != nil {
			return nil, err
		}
		spec["source"], overridden = m, changed
	} else if list, ok := spec["sources"].([]any); ok {
		list = slices.Clone(list)
		for i, v := range list {
			if src, ok := v.(map[string]any); ok {
				m, changed, err := merge(src)
				if err != nil {
					return nil, err
				}
				list[i], overridden = m, overridden || changed
			}
		}
		spec["sources"] = list
	}
	if !overridden {
		return app, nil
	}
	found, err := argocd.Extract([]manifest.Object{{Data: obj, Source: app.Origin.File, Line: app.Origin.Line}})
	if err != nil || len(found.Applications) != 1 {
		return nil, fmt.Errorf("%s: Application %s with its source overrides: %v", app.Origin.File, app.Origin.Name, err)
	}
	out := found.Applications[0]
	out.Origin = app.Origin
	return out, nil
}
