package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
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
