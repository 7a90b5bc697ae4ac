package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// sourceTimeout bounds rendering a source for audit.
const sourceTimeout = 2 * time.Minute

// sourceObjects renders an application source directory (plain manifests,
// Helm or Kustomize) for audit. src, when set, carries the
// Application's Helm settings and directory include/exclude, so the source
// renders as Argo CD renders it for that Application.
func (c *cli) sourceObjects(dir, repoRoot string, src *audit.AppSource) ([]manifest.Object, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("source %s: %v", dir, pathErr(err))
	}
	if !fi.IsDir() {
		return nil, usagef("source %s is not a directory; pass rendered files with --manifests", dir)
	}
	if repoRoot == "" {
		repoRoot = findRepoRoot(abs)
	}
	opt := render.Options{Dir: abs, RepoRoot: repoRoot, ReleaseName: filepath.Base(abs)}
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
	ctx, cancel := context.WithTimeout(context.Background(), sourceTimeout)
	defer cancel()
	return render.Render(ctx, opt)
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
	abs, err := filepath.Abs(o.source)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, nil, fmt.Errorf("source %s: %v", o.source, pathErr(err))
	} else if !fi.IsDir() {
		return nil, nil, usagef("source %s is not a directory; pass rendered files with --manifests", o.source)
	}
	env, err := app.Environ()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := plugin.FromEnv(env, abs)
	if err != nil {
		return nil, nil, fmt.Errorf("the plugin settings of Application %s (spec.source.plugin): %v", app.Name, err)
	}
	cfg.RepoRoot = o.repoRoot
	if cfg.RepoRoot == "" {
		cfg.RepoRoot = findRepoRoot(abs)
	}
	oc := o.common
	if len(oc.operators) == 0 {
		oc.operators = cfg.Operators
		oc.strict = oc.strict || cfg.Strict
	}
	if len(oc.operators) == 0 {
		return nil, nil, usagef("Application %s sets no operators for cmp-defaults (parameter operators or plugin env CMP_DEFAULTS_OPERATORS); give --operator NAME@VERSION", app.Name)
	}
	c.releaseNameSet = cfg.From["release-name"] != ""
	var filled [][]defaults.Filled
	objs, res, err := c.renderFill(&oc, cfg.RenderOptions(), cfg.Timeout, !cfg.AllowEmpty, false, func(i int, f defaults.Filled) {
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
