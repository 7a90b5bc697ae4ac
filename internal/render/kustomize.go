package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// renderKustomize builds a kustomization like `kustomize build DIR` with
// `--load-restrictor LoadRestrictionsNone`, except that the file system is
// confined to the repository root: files anywhere in the repository may be
// used, nothing outside it (not through "..", not through symbolic links).
// Remote bases and Helm chart inflation are refused before anything runs.
//
// Objects come in kustomize's output order (legacy kind order unless the
// kustomization sets sortOptions); their Source is the kustomization file
// relative to Dir and Doc/Line count in kustomize's output stream.
func renderKustomize(ctx context.Context, opt Options) ([]manifest.Object, error) {
	return runCtx(ctx, "building kustomization "+opt.Dir, func() ([]manifest.Object, error) {
		return kustomizeBuild(ctx, opt)
	})
}

func kustomizeBuild(ctx context.Context, opt Options) ([]manifest.Object, error) {
	where := rel(opt.RepoRoot, opt.Dir)
	kfile, err := preflightKustomization(ctx, opt.RepoRoot, opt.Dir, map[string]bool{})
	if err != nil {
		return nil, fmt.Errorf("kustomization %s: %w", where, err)
	}
	fsys := &rootFS{root: opt.RepoRoot, disk: filesys.MakeFsOnDisk(), budget: opt.budget}
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionUnspecified // the kustomize CLI's default
	o.LoadRestrictions = types.LoadRestrictionsNone
	o.PluginConfig = types.DisabledPluginConfig() // builtins only, no helm, no exec/KRM functions
	m, err := krusty.MakeKustomizer(o).Run(fsys, opt.Dir)
	if err != nil {
		if v := fsys.firstViolation(); v != nil {
			return nil, fmt.Errorf("kustomization %s: %w\n(kustomize said: %v)", where, v, err)
		}
		return nil, fmt.Errorf("kustomization %s: kustomize build failed: %w", where, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := m.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomization %s: encoding kustomize output: %w", where, err)
	}
	return manifest.Decode(rel(opt.Dir, kfile), data)
}

// findKustomization returns the kustomization file of dir, or "".
func findKustomization(dir string) string {
	for _, name := range KustomizationFiles {
		if p := filepath.Join(dir, name); isFile(p) {
			return p
		}
	}
	return ""
}

// Keys of a kustomization whose entries are other kustomizations or files
// (and so could be remote).
var (
	kustBaseKeys = []string{"resources", "bases", "components"}
	kustFileKeys = []string{"crds", "configurations", "generators", "transformers", "validators", "patchesStrategicMerge"}
	kustPathKeys = []string{"patches", "patchesJson6902", "replacements"}
	kustHelmKeys = []string{"helmCharts", "helmGlobals", "helmChartInflationGenerator"}
)

// preflightKustomization walks the local kustomizations reachable from dir
// and refuses, with a clear message, what would need the network or Helm.
// It returns dir's kustomization file.
func preflightKustomization(ctx context.Context, root, dir string, seen map[string]bool) (string, error) {
	kfile := findKustomization(dir)
	if kfile == "" || seen[dir] {
		return kfile, nil
	}
	seen[dir] = true
	if err := ctx.Err(); err != nil {
		return "", err
	}
	name := rel(root, kfile)
	if _, err := checkInside(root, kfile, name); err != nil {
		return "", err
	}
	data, err := os.ReadFile(kfile)
	if err != nil {
		return "", err
	}
	var k map[string]any
	if err := yaml.Unmarshal(data, &k); err != nil {
		return "", fmt.Errorf("%s: malformed YAML: %v", name, err)
	}
	for _, key := range kustHelmKeys {
		if _, ok := k[key]; ok {
			return "", fmt.Errorf("%s uses %s: Helm charts inside kustomize are not supported; "+
				"point the application at the chart itself (a Helm source) or commit the rendered manifests", name, key)
		}
	}
	for _, key := range kustBaseKeys {
		for _, s := range strings_(k[key]) {
			local := filepath.Join(dir, filepath.FromSlash(s))
			if looksRemote(s, local) {
				return "", fmt.Errorf("%s: %s entry %q: %w: cmp-defaults renders offline and does not fetch remote bases; "+
					"vendor it into the repository and refer to it by a relative path", name, key, s, ErrRemote)
			}
			if filepath.IsAbs(s) {
				continue // kustomize refuses absolute roots itself
			}
			real, err := checkInside(root, local, fmt.Sprintf("%s: %s entry %q", name, key, s))
			if err != nil {
				if errors.Is(err, ErrOutsideRoot) {
					return "", err
				}
				continue // missing: kustomize reports it
			}
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				if _, err := preflightKustomization(ctx, root, real, seen); err != nil {
					return "", err
				}
			}
		}
	}
	check := func(key, s string) error {
		if strings.Contains(s, "://") && !strings.Contains(s, "\n") {
			return fmt.Errorf("%s: %s entry %q: %w: cmp-defaults renders offline; commit the file to the repository and refer to it by a relative path",
				name, key, s, ErrRemote)
		}
		return nil
	}
	for _, key := range kustFileKeys {
		for _, s := range strings_(k[key]) {
			if err := check(key, s); err != nil {
				return "", err
			}
		}
	}
	for _, key := range kustPathKeys {
		items, _ := k[key].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				if p, ok := m["path"].(string); ok {
					if err := check(key, p); err != nil {
						return "", err
					}
				}
			}
		}
	}
	if m, ok := k["openapi"].(map[string]any); ok {
		if p, ok := m["path"].(string); ok {
			if err := check("openapi", p); err != nil {
				return "", err
			}
		}
	}
	for _, key := range []string{"configMapGenerator", "secretGenerator"} {
		items, _ := k[key].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			for _, f := range []string{"files", "envs", "env"} {
				for _, s := range strings_(m[f]) {
					if _, after, ok := strings.Cut(s, "="); ok && f == "files" {
						s = after
					}
					if err := check(key+"."+f, s); err != nil {
						return "", err
					}
				}
			}
		}
	}
	return kfile, nil
}

// strings_ returns the string entries of a YAML list (or a single string).
func strings_(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// looksRemote reports whether a resources/bases/components entry is a remote
// target (URL or git repository spec) rather than a local path.
func looksRemote(s, local string) bool {
	if strings.Contains(s, "://") || strings.HasPrefix(s, "git@") || strings.HasPrefix(s, "git::") ||
		strings.HasPrefix(s, "gh:") || strings.Contains(s, "?ref=") || strings.Contains(s, "?version=") {
		return true
	}
	if _, err := os.Lstat(local); err == nil {
		return false
	}
	// "github.com/org/repo//path", "gitlab.example.com/x/y": a host name first.
	first, rest, ok := strings.Cut(s, "/")
	return ok && rest != "" && strings.Contains(first, ".") && !strings.HasPrefix(first, ".")
}

// rootFS is kustomize's on-disk file system confined to a repository root:
// every access is checked after resolving symbolic links; writes are refused.
// The first refused path is remembered so the error can name it even when
// kustomize reports something vaguer.
type rootFS struct {
	root   string
	disk   filesys.FileSystem
	budget *budget

	mu        sync.Mutex
	violation error
}

var _ filesys.FileSystem = (*rootFS)(nil)

func (f *rootFS) firstViolation() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.violation
}

// check fails unless p, with every symbolic link resolved, is inside the root.
// p need not exist; its longest existing prefix is resolved.
func (f *rootFS) check(p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	real := resolveExisting(abs)
	if within(f.root, real) {
		return nil
	}
	via := ""
	if real != abs {
		via = fmt.Sprintf(" (it resolves to %s through a symbolic link)", real)
	}
	shown := abs
	if within(f.root, abs) {
		shown = rel(f.root, abs)
	}
	err = fmt.Errorf("%s is %w %s%s; kustomizations may only use files inside the repository", shown, ErrOutsideRoot, f.root, via)
	f.mu.Lock()
	if f.violation == nil {
		f.violation = err
	}
	f.mu.Unlock()
	return err
}

// resolveExisting resolves symbolic links in the longest existing prefix of
// the clean absolute path p and appends the rest.
func resolveExisting(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolveExisting(parent), filepath.Base(p))
}

var errReadOnly = errors.New("the repository is read-only while rendering")

func (f *rootFS) Create(p string) (filesys.File, error) {
	return nil, fmt.Errorf("%s: %w", p, errReadOnly)
}
func (f *rootFS) Mkdir(p string) error               { return fmt.Errorf("%s: %w", p, errReadOnly) }
func (f *rootFS) MkdirAll(p string) error            { return fmt.Errorf("%s: %w", p, errReadOnly) }
func (f *rootFS) RemoveAll(p string) error           { return fmt.Errorf("%s: %w", p, errReadOnly) }
func (f *rootFS) WriteFile(p string, _ []byte) error { return fmt.Errorf("%s: %w", p, errReadOnly) }

func (f *rootFS) Open(p string) (filesys.File, error) {
	if err := f.check(p); err != nil {
		return nil, err
	}
	return f.disk.Open(p)
}

func (f *rootFS) IsDir(p string) bool {
	return f.check(p) == nil && f.disk.IsDir(p)
}

func (f *rootFS) ReadDir(p string) ([]string, error) {
	if err := f.check(p); err != nil {
		return nil, err
	}
	return f.disk.ReadDir(p)
}

func (f *rootFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	if err := f.check(p); err != nil {
		return "", "", err
	}
	if _, err := os.Stat(p); err != nil {
		// fsOnDisk.CleanedAbs would call log.Fatalf for some missing paths.
		return "", "", fmt.Errorf("%s: %w", p, err)
	}
	return f.disk.CleanedAbs(p)
}

func (f *rootFS) Exists(p string) bool {
	return f.check(p) == nil && f.disk.Exists(p)
}

func (f *rootFS) Glob(pattern string) ([]string, error) {
	if err := f.check(filepath.Dir(pattern)); err != nil {
		return nil, err
	}
	all, err := f.disk.Glob(pattern)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range all {
		if f.check(p) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *rootFS) ReadFile(p string) ([]byte, error) {
	if err := f.check(p); err != nil {
		return nil, err
	}
	if err := f.budget.takeFile(p, rel(f.root, p)); err != nil {
		return nil, err
	}
	return f.disk.ReadFile(p)
}

func (f *rootFS) Walk(p string, fn filepath.WalkFunc) error {
	if err := f.check(p); err != nil {
		return err
	}
	return f.disk.Walk(p, fn)
}
