package main

import (
	"fmt"
	"os"

	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// sourceObjects renders an application source directory (plain manifests,
// Helm or Kustomize) for audit. src, when set, carries the
// Application's Helm settings and directory include/exclude, so the source
// renders as Argo CD renders it for that Application.
func (c *cli) sourceObjects(dir, repoRoot string, src *audit.AppSource) ([]manifest.Object, error) {
	opt, err := c.auditSourceOptions(dir, repoRoot, src)
	if err != nil {
		return nil, err
	}
	return render.Render(c.ctx, opt)
}

// auditSourceOptions are the render options of an Application's source.
func (c *cli) auditSourceOptions(dir, repoRoot string, src *audit.AppSource) (render.Options, error) {
	opt, err := c.auditSourceDir(dir, repoRoot)
	if err != nil {
		return opt, err
	}
	if src != nil {
		opt.Include, opt.Exclude = src.Include, src.Exclude
		opt.ValuesFiles = src.ValueFiles
		opt.Values = src.Values
		opt.Namespace = src.Namespace
		switch {
		case src.ReleaseName != "":
			opt.ReleaseName = src.ReleaseName
		case src.App != "" && !isTemplated(src.App):
			opt.ReleaseName = src.App // Argo CD's default release name
		}
		for _, p := range src.Parameters {
			if p.ForceString {
				opt.SetString = append(opt.SetString, p.Name+"="+p.Value)
			} else {
				opt.Set = append(opt.Set, p.Name+"="+p.Value)
			}
		}
	}
	return opt, nil
}

// auditSourceDir checks that --source is a directory and starts its
// render options as every command does.
func (c *cli) auditSourceDir(dir, repoRoot string) (render.Options, error) {
	opt, err := render.NewOptions(dir, repoRoot, c.maxInput)
	if err != nil {
		return opt, err
	}
	fi, err := os.Stat(opt.Dir)
	if err != nil {
		return opt, fmt.Errorf("source %s: %v", dir, input.PathErr(err))
	}
	if !fi.IsDir() {
		return opt, usagef("source %s is not a directory; pass rendered files with --manifests", dir)
	}
	return opt, nil
}

func isTemplated(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '{' && s[i+1] == '{' {
			return true
		}
	}
	return false
}

// auditPluginSource renders an Application whose source names the
// cmp-defaults plugin exactly as generate renders it: the same
// configuration reader over the environment argocd-cmp-server would build
// from the Application (parameters, plugin env, name and destination), and
// the same render and fill. --operator, when given, overrides the
// Application's operators.
func (c *cli) auditPluginSource(o *auditOptions, app *plugin.Application) ([]*audit.Target, []*operators.Resolution, error) {
	dir, err := c.auditSourceDir(o.source, o.repoRoot)
	if err != nil {
		return nil, nil, err
	}
	env, err := app.Environ()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := plugin.FromEnv(env, dir.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("the plugin settings of Application %s (spec.source.plugin): %v", app.Name, err)
	}
	cfg.RepoRoot = dir.RepoRoot
	oc := o.common
	if len(oc.operators) == 0 {
		oc.operators = cfg.Operators
		oc.strict = oc.strict || cfg.Strict
	}
	if len(oc.operators) == 0 {
		return nil, nil, usagef("Application %s sets no operators for cmp-defaults (parameter operators or plugin env CMP_DEFAULTS_OPERATORS); give --operator NAME@VERSION", app.Name)
	}
	var filled [][]defaults.Filled
	objs, res, err := c.renderFill(&oc, runOf(cfg), false, func(i int, f defaults.Filled) {
		for len(filled) <= i {
			filled = append(filled, nil)
		}
		filled[i] = append(filled[i], f)
	})
	if err != nil {
		return nil, nil, err
	}
	targets := make([]*audit.Target, len(objs))
	for i := range objs {
		targets[i] = &audit.Target{Object: objs[i]}
		if i < len(filled) {
			targets[i].Filled = filled[i]
		}
	}
	return targets, res, nil
}
