package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/glob"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// skipFileMarker makes Argo CD's directory source skip a file; we honour it too.
const skipFileMarker = "+argocd:skip-file-rendering"

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// manifestExt reports whether name has a manifest extension.
func manifestExt(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func compileGlob(what, pattern string) (*glob.Glob, error) {
	if pattern == "" {
		return nil, nil
	}
	g, err := glob.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%s pattern %.200q is not a valid glob: %v; write a shorter pattern, or list the files with {a.yaml,b/*.yaml}", what, pattern, err)
	}
	return g, nil
}

// DirectoryFiles lists the manifest files of a directory source, relative to
// dir with forward slashes, sorted. It applies the same rules as Render:
// recursive, .yaml/.yml/.json only, hidden files and directories skipped,
// include/exclude globs matched against the relative path (as Argo CD's
// directory.include/exclude: "*" matches across "/"), symbolic links followed
// for files inside root and refused when they lead outside it.
func DirectoryFiles(ctx context.Context, root, dir, include, exclude string) ([]string, error) {
	inc, err := compileGlob("include", include)
	if err != nil {
		return nil, err
	}
	exc, err := compileGlob("exclude", exclude)
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		name := d.Name()
		r := rel(dir, p)
		if strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := checkInside(root, p, "symbolic link "+r)
			if err != nil {
				if errors.Is(err, ErrOutsideRoot) {
					return err
				}
				return nil // dangling link: Argo CD skips it with a warning
			}
			fi, err := os.Stat(target)
			if err != nil || !fi.Mode().IsRegular() {
				return nil // linked directories are not followed, like Argo CD
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		if !manifestExt(name) {
			return nil
		}
		if exc != nil && exc.Match(r) {
			return nil
		}
		if inc != nil && !inc.Match(r) {
			return nil
		}
		files = append(files, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

func renderDirectory(ctx context.Context, opt Options) ([]manifest.Object, error) {
	files, err := DirectoryFiles(ctx, opt.RepoRoot, opt.Dir, opt.Include, opt.Exclude)
	if err != nil {
		return nil, fmt.Errorf("reading directory source %s: %w", opt.Dir, err)
	}
	if len(files) == 0 {
		filter := ""
		if opt.Include != "" || opt.Exclude != "" {
			filter = fmt.Sprintf(" matching include %q and exclude %q", opt.Include, opt.Exclude)
		}
		return nil, fmt.Errorf("%w (.yaml, .yml, .json)%s in %s or below (hidden files and directories are skipped); "+
			"point the application at the directory holding the manifests, a Helm chart (Chart.yaml) or a kustomization",
			ErrNoSources, filter, opt.Dir)
	}
	var out []manifest.Object
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		full := filepath.Join(opt.Dir, filepath.FromSlash(f))
		if err := opt.budget.takeFile(full, f); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, err
		}
		data = bytes.TrimPrefix(data, utf8BOM)
		if bytes.Contains(data, []byte(skipFileMarker)) {
			continue
		}
		var objs []manifest.Object
		lim := manifest.DefaultLimits
		lim.Warn = opt.Warn
		err = manifest.Each(f, data, lim, func(o manifest.Object) error {
			objs = append(objs, o)
			return nil
		})
		if err != nil {
			// Like Argo CD: a file that yields no object and does not even
			// look like a Kubernetes manifest (a config file that happens
			// to be YAML) is ignored; one that yielded an object is not.
			if len(objs) == 0 && !looksLikeManifest(data) {
				continue
			}
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func looksLikeManifest(data []byte) bool {
	return bytes.Contains(data, []byte("apiVersion")) &&
		bytes.Contains(data, []byte("kind")) &&
		bytes.Contains(data, []byte("metadata"))
}
