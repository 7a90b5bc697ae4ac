package main

import (
	"fmt"
	"os"

	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// auditSourceOptions are the render options of an Application's source
// (audit.SourceOptions).
func (c *cli) auditSourceOptions(dir, repoRoot string, src *audit.AppSource) (render.Options, error) {
	opt, err := c.auditSourceDir(dir, repoRoot)
	return audit.SourceOptions(opt, src), err
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

// auditPluginSource renders an Application whose source names the
// cmp-defaults plugin exactly as generate renders it (audit.PluginConfig,
// and the same render and fill). --operator, when given, overrides the
// Application's operators.
func (c *cli) auditPluginSource(o *auditOptions, app *plugin.Application) ([]*audit.Target, []*operators.Resolution, error) {
	dir, err := c.auditSourceDir(o.source, o.repoRoot)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := audit.PluginConfig(app, dir.Dir, dir.RepoRoot)
	if err != nil {
		return nil, nil, err
	}
	oc := o.common
	if len(oc.operators) == 0 {
		oc.operators = cfg.Operators
		oc.strict = oc.strict || cfg.Strict
	}
	if len(oc.operators) == 0 {
		return nil, nil, usagef("Application %s sets no operators for cmp-defaults (parameter operators or plugin env CMP_DEFAULTS_OPERATORS); give --operator NAME@VERSION", app.Name)
	}
	var rec audit.Recorder
	objs, res, err := c.renderFill(runOf(cfg, c.selection(&oc, oc.operators)), rec.Record)
	if err != nil {
		return nil, nil, err
	}
	return rec.Targets(objs), res, nil
}
