package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/preview"
)

// appSetProgram is the companion program that generates ApplicationSets
// with Argo CD's own code (cmd/cmp-defaults-appset).
const appSetProgram = "cmp-defaults-appset"

// generated is what the companion made of one ApplicationSet.
type generated struct {
	Namespace    string           `json:"namespace"`
	Name         string           `json:"name"`
	Applications []map[string]any `json:"applications"`
	NotEvaluated string           `json:"notEvaluated,omitempty"`
}

// appSetGenerator is the companion program: --appset-generator, else the
// one beside this binary, else on PATH; "" when there is none.
func (p *Preview) appSetGenerator(env *Env) (string, error) {
	if p.AppSetGenerator != "" {
		abs, err := filepath.Abs(p.AppSetGenerator)
		if err != nil || !isProgram(abs) {
			return "", Usagef("--appset-generator %s is not a program", p.AppSetGenerator)
		}
		return abs, nil
	}
	if exe, err := os.Executable(); err == nil {
		if beside := filepath.Join(filepath.Dir(exe), appSetProgram); isProgram(beside) {
			return beside, nil
		}
	}
	return env.lookPath(appSetProgram), nil
}

// generateAppSets runs the companion on the ApplicationSets of one tree and
// returns what it made of each, by namespace/name; nil without a
// companion.
func (p *Preview) generateAppSets(ctx context.Context, env *Env, dir, repoURL string, sets []*argocd.App) (map[string]generated, error) {
	if len(sets) == 0 || p.appSetProg == "" {
		return nil, nil
	}
	var in bytes.Buffer
	for _, s := range sets {
		b, err := json.Marshal(s.Object)
		if err != nil {
			return nil, err
		}
		in.Write(b)
		in.WriteString("\n")
	}
	args := []string{"--repo-root", dir}
	if repoURL != "" {
		args = append(args, "--repo-url", repoURL)
	}
	if p.Clusters != "" {
		abs, err := filepath.Abs(p.Clusters)
		if err != nil {
			return nil, err
		}
		args = append(args, "--clusters", abs)
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, p.appSetProg, args...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Environ, &in, &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", p.appSetProg, err, strings.TrimSpace(stderr.String()))
	}
	var res struct {
		ApplicationSets []generated `json:"applicationSets"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("%s: its output: %w", p.appSetProg, err)
	}
	byKey := map[string]generated{}
	for _, g := range res.ApplicationSets {
		byKey[g.Namespace+"/"+g.Name] = g
	}
	return byKey, nil
}

// asObjects are generated Applications as objects of the ApplicationSet's
// file.
func asObjects(apps []preview.Object, file string) []manifest.Object {
	out := make([]manifest.Object, len(apps))
	for i, a := range apps {
		out[i] = manifest.Object{Data: a.Data, Source: file, Doc: i + 1}
	}
	return out
}

// appSet generates the Applications of an ApplicationSet into s.Objects,
// or says why they are not.
func (p *Preview) appSet(ctx context.Context, env *Env, dir, repoURL string, app *argocd.App, s *preview.Side) (string, error) {
	if p.appSetProg == "" {
		return "ApplicationSet: not generated, since " + appSetProgram + " is not installed (docs/preview.md)", nil
	}
	gen, err := p.generateAppSets(ctx, env, dir, repoURL, []*argocd.App{app})
	if err != nil {
		return "", fmt.Errorf("%s: ApplicationSet %s: %w", app.Origin.File, app.Origin.Name, err)
	}
	g := gen[preview.AppNamespace(app)+"/"+app.Origin.Name]
	if g.NotEvaluated != "" {
		return g.NotEvaluated, nil
	}
	for _, a := range g.Applications {
		s.Objects = append(s.Objects, preview.Object{Data: a, Namespace: preview.AppNamespace(app), InGit: true})
	}
	return "", nil
}
