package action

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// inputsKey names everything rendering app in the tree root reads: the
// Application as written (with its overrides) and the files of its
// sources -- each source directory, its values and file parameters, its
// charts' file:// dependencies. Two revisions with the same key render
// alike, so preview renders such an Application once. ok is false where
// the files cannot be named without rendering: a Kustomize source (its
// kustomization reaches anywhere), a symbolic link.
func (a *Audit) inputsKey(env *Env, root string, app *argocd.App) (key string, ok bool) {
	h := sha256.New()
	spec, err := json.Marshal(app.Object)
	if err != nil {
		return "", false
	}
	h.Write(spec)
	refs := map[string]*argocd.Source{}
	for i, s := range app.Sources {
		if s.Ref != "" {
			refs[s.Ref] = &app.Sources[i]
		}
	}
	var paths []string
	for i := range app.Sources {
		src := &app.Sources[i]
		if src.Chart != "" {
			// A chart of a Helm repository or OCI registry: a run reads
			// each repository's versions once, so the same spec is the
			// same chart at both revisions; $REF values files are ours.
			for _, f := range src.ValueFiles {
				if name, rest, why, err := a.valuesRef(src, f, a.RepoURL, refs); name != "" && why == "" && err == nil {
					paths = append(paths, filepath.Join(root, filepath.FromSlash(rest)))
				}
			}
			continue
		}
		if src.Ref != "" && src.Path == "" {
			continue // its files are read through the others' $ref value files
		}
		dir, hs, _, why, err := a.resolve(root, a.RepoURL, src, refs)
		if err != nil || why != "" {
			return "", false
		}
		if src.Plugin != nil {
			cfg, err := src.PluginConfig(dir, root, env.Sidecar)
			if err != nil {
				return "", false
			}
			hs = cfg.Helm
		}
		// The settings as resolved: the revision substituted in parameters.
		if b, err := json.Marshal(hs); err == nil {
			h.Write(b)
		}
		kind, err := render.Detect(dir)
		if err != nil || kind == render.KindKustomize {
			return "", false
		}
		paths = append(paths, dir)
		for _, f := range slices.Concat(hs.ValuesFiles, fileArgs(hs.SetFile)) {
			paths = append(paths, filepath.Join(dir, filepath.FromSlash(f)))
		}
		if kind == render.KindHelm && !localDeps(root, dir, &paths, 0) {
			return "", false
		}
	}
	slices.Sort(paths)
	for _, p := range slices.Compact(paths) {
		r, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(r, "..") || !hashTree(h, root, p) {
			return "", false
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), true
}

// fileArgs are the paths of --set-file's KEY=PATH arguments.
func fileArgs(sets []string) []string {
	var out []string
	for _, s := range sets {
		if _, p, ok := strings.Cut(s, "="); ok {
			out = append(out, p)
		}
	}
	return out
}

// localDeps adds the directories of the chart's file:// dependencies, and
// theirs; false where Chart.yaml cannot be read.
func localDeps(root, dir string, paths *[]string, depth int) bool {
	b, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil || depth > 10 {
		return false
	}
	var c struct {
		Dependencies []struct{ Repository string } `json:"dependencies"`
	}
	if yaml.Unmarshal(b, &c) != nil {
		return false
	}
	for _, d := range c.Dependencies {
		p, local := strings.CutPrefix(d.Repository, "file://")
		if !local {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		*paths = append(*paths, p)
		if _, err := os.Stat(filepath.Join(p, "Chart.yaml")); err == nil && !localDeps(root, p, paths, depth+1) {
			return false
		}
	}
	return true
}

// hashTree writes the names, kinds and contents of p (a file, or a
// directory and all beneath it) into h, named relative to root; a missing
// p is written as missing. false on a symbolic link or an unreadable file.
func hashTree(h io.Writer, root, p string) bool {
	if _, err := os.Lstat(p); err != nil {
		fmt.Fprintf(h, "missing %s\n", p[len(root):])
		return true
	}
	err := filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return fs.ErrInvalid
		case d.IsDir():
			fmt.Fprintf(h, "dir %s\n", f[len(root):])
			return nil
		case !d.Type().IsRegular():
			return fs.ErrInvalid
		}
		b, err := os.ReadFile(f)
		fmt.Fprintf(h, "file %s %d\n", f[len(root):], len(b))
		h.Write(b)
		return err
	})
	return err == nil
}
