package audit

import (
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// Settings are the Application's Helm settings and directory
// include/exclude, so the source renders as Argo CD renders it for that
// Application; none for a nil src.
func Settings(src *AppSource) render.Settings {
	var s render.Settings
	if src == nil {
		return s
	}
	s.Include, s.Exclude = src.Include, src.Exclude
	s.ValuesFiles = src.ValueFiles
	s.Values = src.Values
	s.Namespace = src.Namespace
	switch {
	case src.ReleaseName != "":
		s.ReleaseName = src.ReleaseName
	case src.App != "" && !templated(src.App):
		s.ReleaseName = src.App // Argo CD's default release name
	}
	for _, p := range src.Parameters {
		if p.ForceString {
			s.SetString = append(s.SetString, p.Name+"="+p.Value)
		} else {
			s.Set = append(s.Set, p.Name+"="+p.Value)
		}
	}
	return s
}

// PluginConfig is the configuration generate reads for an Application
// that names the cmp-defaults plugin, from the environment
// argocd-cmp-server would build for it (parameters, plugin env, name and
// destination) with the sidecar settings side, with dir the source
// directory and repoRoot its repository.
func PluginConfig(app *plugin.Application, dir, repoRoot string, side plugin.Sidecar) (*plugin.Config, error) {
	env, err := app.Environ()
	if err != nil {
		return nil, err
	}
	cfg, err := plugin.FromEnv(env, dir, side)
	if err != nil {
		return nil, fmt.Errorf("the plugin settings of Application %s (spec.source.plugin): %v", app.Name, err)
	}
	cfg.RepoRoot = repoRoot
	return cfg, nil
}

// Recorder collects the fields filled into each object, by index, as
// defaults.Engine and the pipeline report them.
type Recorder struct {
	filled [][]defaults.Filled
}

// Record is the callback of Engine.FillAll.
func (r *Recorder) Record(i int, f defaults.Filled) {
	for len(r.filled) <= i {
		r.filled = append(r.filled, nil)
	}
	r.filled[i] = append(r.filled[i], f)
}

// Targets pairs objs with what was filled into each.
func (r *Recorder) Targets(objs []manifest.Object) []*Target { return TargetsOf(objs, r.filled) }

// TargetsOf pairs objs with what was filled into each, by index.
func TargetsOf(objs []manifest.Object, filled [][]defaults.Filled) []*Target {
	targets := make([]*Target, len(objs))
	for i := range objs {
		targets[i] = &Target{Object: objs[i]}
		if i < len(filled) {
			targets[i].Filled = filled[i]
		}
	}
	return targets
}

// FillTargets fills objs with e and returns them as audit targets.
func FillTargets(e *defaults.Engine, objs []manifest.Object) ([]*Target, error) {
	var r Recorder
	if err := e.FillAll(objs, r.Record); err != nil {
		return nil, err
	}
	return r.Targets(objs), nil
}

// Collect reads the ignoreDifferences rules of the Application and
// ApplicationSet files apps and of the argocd-cm files cms, with read;
// readFile gives each rule its line. A file that has none of them is an
// error: the user named the wrong one.
func Collect(apps, cms []string, read func([]string) ([]manifest.Object, error), readFile func(string) ([]byte, error)) (*Found, error) {
	found := &Found{}
	if len(apps) > 0 {
		objs, err := read(apps)
		if err != nil {
			return nil, err
		}
		if found, err = Extract(objs); err != nil {
			return nil, err
		}
		if found.Apps == 0 && found.ConfigMaps == 0 {
			return nil, fmt.Errorf("%s: no Argo CD Application, ApplicationSet or argocd-cm ConfigMap found", strings.Join(apps, ", "))
		}
	}
	for _, f := range cms {
		objs, err := read([]string{f})
		if err != nil {
			return nil, err
		}
		if err := found.addConfigMaps(f, objs); err != nil {
			return nil, err
		}
	}
	found.SetLines(readFile)
	return found, nil
}

// addConfigMaps adds the ignoreDifferences keys of the ConfigMaps among
// objs, read from file; a file without one is an error.
func (f *Found) addConfigMaps(file string, objs []manifest.Object) error {
	n := 0
	for _, ob := range objs {
		if k, _ := ob.Data["kind"].(string); k == "ConfigMap" {
			if err := f.AddConfigMap(ob); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: no ConfigMap found (expected argocd-cm)", file)
	}
	return nil
}
