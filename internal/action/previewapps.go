package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/preview"
)

// side finds the Applications of one tree, follows apps of apps, and
// renders each.
func (p *Preview) side(ctx context.Context, env *Env, admission *admissionCache, r *Audit, cache *flagEngine, dir string, cm []*argocd.Rule) (map[string]*preview.Side, error) {
	found, err := p.discover(env, dir)
	if err != nil {
		return nil, err
	}
	apps := map[string]*preview.Side{}
	var queue []queued
	add := func(f *argocd.Found, parent string, depth int) {
		for _, app := range f.Applications {
			k := preview.AppNamespace(app) + "/" + app.Origin.Name
			if s, ok := apps[k]; ok {
				if s.Parent == "" && parent != "" && parent != k {
					s.Parent = parent
				}
				continue
			}
			if filepath.IsAbs(app.Origin.File) {
				app.Origin.File = relSlash(dir, app.Origin.File)
			}
			apps[k] = &preview.Side{App: app, Data: app.Object, Parent: parent}
			var rules []*argocd.Rule
			for _, rule := range f.Rules {
				if rule.App == app {
					rules = append(rules, rule)
				}
			}
			queue = append(queue, queued{app, append(rules, cm...), parent, depth})
		}
	}
	add(found, "", 0)
	// Level by level of apps of apps: a level's Applications render at
	// once, then each is taken in order as one render after another would.
	for len(queue) > 0 {
		level := queue
		queue = nil
		renders, err := p.renderLevel(ctx, env, r, cache, dir, level)
		if err != nil {
			return nil, err
		}
		for i, q := range level {
			k := preview.AppNamespace(q.app) + "/" + q.app.Origin.Name
			s := apps[k]
			s.Rules = q.rules
			s.AutoPrune = autoPrune(q.app.Object)
			if q.app.Origin.Kind == "ApplicationSet" {
				if s.NotEvaluated, err = p.appSet(ctx, env, dir, r.RepoURL, q.app, s); err != nil {
					return nil, err
				}
				if s.NotEvaluated == "" {
					children, err := argocd.Extract(asObjects(s.Objects, q.app.Origin.File))
					if err != nil {
						return nil, err
					}
					add(children, k, q.depth+1)
				}
				continue
			}
			rd := renders[i]
			if rd.err != nil {
				if ctx.Err() != nil {
					return nil, rd.err
				}
				s.Err = rd.err
				continue
			}
			g, as, app := rd.g, rd.as, rd.app
			s.Operators = as.Operators
			s.Objects = objectsOf(admission, g, as, app)
			for i, sr := range as.Sources {
				// A ref source's files are for the others: nothing of its own to render.
				if src := app.Sources[i]; sr.Reason != "" && (src.Ref == "" || src.Path != "" || src.Chart != "") {
					s.Unrendered = append(s.Unrendered, sr.Field+": "+sr.Reason)
				}
			}
			var objs []manifest.Object
			for _, t := range g.Targets {
				objs = append(objs, t.Object)
			}
			children, err := argocd.Extract(objs)
			if err != nil {
				s.Err = err
				continue
			}
			if len(children.Applications) > 0 && q.depth >= maxAppDepth {
				s.Err = fmt.Errorf("apps of apps deeper than %d levels", maxAppDepth)
				continue
			}
			add(children, k, q.depth+1)
		}
	}
	return apps, nil
}

// queued is an Application or ApplicationSet found and not yet rendered.
type queued struct {
	app    *argocd.App
	rules  []*argocd.Rule
	parent string
	depth  int
}

// rendered is what rendering one queued Application made.
type rendered struct {
	app    *argocd.App // with its .argocd-source overrides
	key    string      // inputsKey: "" when it has none
	reused bool
	g      audit.Group // read-only: a revision with the same key shares it
	as     audit.AppSources
	err    error
}

// renderLevel renders the Applications of level (not its ApplicationSets)
// at once, at most one per CPU, each with an Env of its own whose warnings
// join env's in the level's order: the report and warnings are those of
// one render after another, only sooner.
func (p *Preview) renderLevel(ctx context.Context, env *Env, r *Audit, cache *flagEngine, dir string, level []queued) ([]rendered, error) {
	if len(r.refs()) > 0 && cache.e == nil {
		// Compiled once here: the renders share it and never write cache.
		if _, _, err := r.engine(ctx, env, cache); err != nil {
			return nil, err
		}
	}
	out := make([]rendered, len(level))
	envs := make([]*Env, len(level))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, q := range level {
		if q.app.Origin.Kind == "ApplicationSet" {
			continue
		}
		envs[i] = env.fork()
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			o := &out[i]
			if o.app, o.err = withOverrides(envs[i], dir, q.app); o.err != nil {
				return
			}
			o.key, _ = r.inputsKey(envs[i], dir, o.app)
			if done, ok := p.rendered[o.key]; ok && o.key != "" {
				o.g, o.as, o.reused = done.g, done.as, true
				return
			}
			o.g, o.as, o.err = r.renderApp(ctx, envs[i], cache, dir, r.RepoURL, o.app)
		}()
	}
	wg.Wait()
	for i, e := range envs {
		if e != nil {
			env.Warnings.MergeNew(&e.Warnings)
		}
		if o := out[i]; o.reused {
			p.reused++
		} else if o.key != "" && o.err == nil {
			p.rendered[o.key] = o
		}
	}
	return out, nil
}

// discover reads every Application and ApplicationSet in the YAML and JSON
// files of dir, but those of Helm charts (templates render only through
// their Application) and of .git.
func (p *Preview) discover(env *Env, dir string) (*argocd.Found, error) {
	var objs []manifest.Object
	read := env.reader(nil)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "Chart.yaml")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := manifest.ReadFile(path, env.Sidecar.MaxInput)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte("argoproj.io")) || !bytes.Contains(b, []byte("Application")) {
			return nil
		}
		got, err := read.All([]string{path})
		if err != nil {
			env.Warn(fmt.Sprintf("%s: skipped, not read as YAML or JSON: %v", relSlash(dir, path), err))
			return nil
		}
		objs = append(objs, got...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	found, err := argocd.Extract(objs)
	if err != nil {
		return nil, err
	}
	found.SetLines(func(file string) ([]byte, error) { return manifest.ReadFile(file, env.Sidecar.MaxInput) })
	for _, r := range found.Rules {
		r.Origin.File = relSlash(dir, r.Origin.File)
	}
	for _, w := range found.Warnings {
		env.Warn(strings.ReplaceAll(w, dir+string(filepath.Separator), ""))
	}
	return found, nil
}
