package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
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
	kfile, err := preflightKustomization(ctx, opt.RepoRoot, opt.Dir, map[string]bool{}, opt.budget)
	if err != nil {
		return nil, fmt.Errorf("kustomization %s: %w", where, err)
	}
	fsys := &rootFS{root: opt.RepoRoot, disk: filesys.MakeFsOnDisk(), budget: opt.budget}
	m, err := runKrusty(fsys, opt.Dir)
	if err != nil {
		if v := fsys.firstViolation(); v != nil {
			return nil, fmt.Errorf("kustomization %s: %w", where, v)
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
	if err := opt.budget.take("the output of kustomization "+where, int64(len(data))); err != nil {
		return nil, err
	}
	return opt.decode(rel(opt.Dir, kfile), data)
}

// runKrusty is `kustomize build --load-restrictor LoadRestrictionsNone` on
// fsys, with builtin plugins only. It never fetches: the preflight refuses
// every remote shape, and the worker process it runs in has no PATH (no
// git to clone with) and sends HTTP through a proxy that refuses it
// (internal/supervisor).
func runKrusty(fsys filesys.FileSystem, dir string) (resmap.ResMap, error) {
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionUnspecified // the kustomize CLI's default
	o.LoadRestrictions = types.LoadRestrictionsNone
	o.PluginConfig = types.DisabledPluginConfig() // builtins only, no helm, no exec/KRM functions
	return krusty.MakeKustomizer(o).Run(fsys, dir)
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

// Keys of a kustomization whose entries name other kustomizations or files.
// Each entry must be a plain relative path inside the repository: anything
// kustomize could take for a remote target (URL, git repository, scp-style
// host:path) is refused before krusty runs.
var (
	kustListKeys = []string{"resources", "bases", "components", "crds", "configurations",
		"generators", "transformers", "validators", "patchesStrategicMerge"}
	kustPathKeys = []string{"patches", "patchesJson6902", "replacements"}
	kustHelmKeys = []string{"helmCharts", "helmGlobals", "helmChartInflationGenerator"}
)

// maxKustomizationBytes bounds one kustomization file, checked before it is read.
const maxKustomizationBytes = 1 << 20

// preflightKustomization walks the local kustomizations reachable from dir
// and refuses, with a clear message, what would need the network or Helm.
// It returns dir's kustomization file.
func preflightKustomization(ctx context.Context, root, dir string, seen map[string]bool, b *budget) (string, error) {
	kfile, _, err := preflightDir(ctx, root, dir, seen, b)
	return kfile, err
}

// preflightDir is preflightKustomization that also counts the resource
// documents below dir, to bound what patches with a target can generate.
func preflightDir(ctx context.Context, root, dir string, seen map[string]bool, b *budget) (kfile string, docs int64, err error) {
	kfile = findKustomization(dir)
	if kfile == "" || seen[dir] {
		return kfile, 0, nil
	}
	seen[dir] = true
	if err := ctx.Err(); err != nil {
		return "", 0, err
	}
	name := rel(root, kfile)
	if _, err := checkInside(root, kfile, name); err != nil {
		return "", 0, err
	}
	data, err := readBounded(kfile, name, maxKustomizationBytes, b)
	if err != nil {
		return "", 0, err
	}
	if err := manifest.CheckYAML(data, b.limit()); err != nil {
		return "", 0, fmt.Errorf("%s: %w", name, err)
	}
	var k map[string]any
	if err := yaml.Unmarshal(data, &k); err != nil {
		return "", 0, fmt.Errorf("%s: malformed YAML: %v", name, err)
	}
	for _, key := range kustHelmKeys {
		if _, ok := k[key]; ok {
			return "", 0, fmt.Errorf("%s uses %s: Helm charts inside kustomize are not supported; "+
				"point the application at the chart itself (a Helm source) or commit the rendered manifests", name, key)
		}
	}
	// Every entry that names a path, and every inline patch (YAML parsed
	// by kustomize, so under the same alias limits).
	type entry struct{ key, path string }
	var paths []entry
	var inline []entry
	add := func(key string, v any) {
		s, ok := v.(string)
		if !ok {
			return
		}
		if strings.Contains(s, "\n") {
			inline = append(inline, entry{key, s})
		} else {
			paths = append(paths, entry{key, s})
		}
	}
	for _, key := range kustListKeys {
		for _, s := range strings_(k[key]) {
			add(key, s)
		}
	}
	for _, key := range kustPathKeys {
		items, _ := k[key].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				add(key, m["path"])
				if p, ok := m["patch"].(string); ok {
					inline = append(inline, entry{key, p})
				}
			}
		}
	}
	if m, ok := k["openapi"].(map[string]any); ok {
		add("openapi", m["path"])
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
					add(key+"."+f, s)
				}
			}
		}
	}
	for _, e := range inline {
		if err := manifest.CheckYAML([]byte(e.path), b.limit()); err != nil {
			return "", 0, fmt.Errorf("%s: inline patch in %s: %w", name, e.key, err)
		}
	}
	for _, e := range paths {
		s := e.path
		local := filepath.Join(dir, filepath.FromSlash(s))
		if why := remoteTarget(s, local); why != "" {
			return "", 0, fmt.Errorf("%s: %s entry %q %s: %w: cmp-defaults renders offline and never fetches anything; "+
				"vendor it into the repository and refer to it by a relative path", name, e.key, s, why, ErrRemote)
		}
		what := fmt.Sprintf("%s: %s entry %q", name, e.key, s)
		if filepath.IsAbs(s) {
			local = filepath.Clean(s)
			if within(root, local) {
				return "", 0, fmt.Errorf("%s is an absolute path; write it relative to %s", what, rel(root, dir))
			}
		}
		if !within(root, local) {
			return "", 0, fmt.Errorf("%s (%s) is %w %s; only files inside the repository can be used", what, local, ErrOutsideRoot, root)
		}
		real, err := checkInside(root, local, fmt.Sprintf("%s (%s)", what, local))
		if err != nil {
			if errors.Is(err, ErrOutsideRoot) {
				return "", 0, err
			}
			continue // missing: kustomize reports it
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			_, n, err := preflightDir(ctx, root, real, seen, b)
			if err != nil {
				return "", 0, err
			}
			docs += n
		} else if e.key == "resources" {
			docs += countDocs(real)
		}
	}
	// A patch with a target is copied into every resource it selects:
	// refuse before kustomize builds what could pass the budget.
	if gen := targetedPatchBytes(dir, k) * docs; gen > b.limit() {
		return "", 0, fmt.Errorf("%s: its patches with a target, applied to up to %d resources, could generate %d bytes, more than the %d allowed; "+
			"make the patches smaller or their targets narrower, or raise CMP_DEFAULTS_MAX_INPUT_BYTES", name, docs, gen, b.limit())
	}
	return kfile, docs, nil
}

// countDocs counts the YAML documents of a resource file (0 if unreadable).
func countDocs(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > DefaultMaxBytes {
		return 0
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	return int64(bytes.Count(data, []byte("\n---"))) + 1
}

// targetedPatchBytes is the size of the patches of a kustomization that
// have a target selector, inline or in files.
func targetedPatchBytes(dir string, k map[string]any) int64 {
	var n int64
	items, _ := k["patches"].([]any)
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok || m["target"] == nil {
			continue
		}
		if p, ok := m["patch"].(string); ok {
			n += int64(len(p))
		}
		if p, ok := m["path"].(string); ok {
			if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
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

// scpUser is kustomize's "user@" prefix of an scp-style git target.
var scpUser = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// remoteTarget says why a kustomization entry is not a plain local path
// ("" when it is one). It errs on the side of refusing: every shape that
// kustomize's loader takes for a git repository or an HTTP file is
// covered, and so are shapes that only look like a host name when no such
// local path exists.
func remoteTarget(s, local string) string {
	low := strings.ToLower(strings.TrimSpace(s))
	first, rest, hasSlash := strings.Cut(low, "/")
	switch {
	case strings.Contains(low, "://"):
		return "is a URL"
	case strings.HasPrefix(low, "git::"), strings.HasPrefix(low, "gh:"):
		return "names a git repository"
	case strings.ContainsAny(low, "?#"):
		return "has a query or fragment (?ref=, ?version=, #...)"
	case scpUser.MatchString(low):
		return "names a git repository over ssh (user@host:path)"
	case strings.Contains(first, ":"):
		return "names a remote host (host:path)"
	case first == "github.com":
		return "names a GitHub repository (kustomize clones it even when a local directory of that name exists)"
	case strings.HasSuffix(first, ".git") || strings.Contains(low, ".git/") || strings.HasSuffix(low, ".git") || strings.Contains(low, "_git/"):
		return "names a git repository"
	}
	if _, err := os.Lstat(local); err == nil {
		return ""
	}
	// "gitlab.example.com/x/y": a host name first and no such local path.
	if hasSlash && rest != "" && strings.Contains(first, ".") && !strings.HasPrefix(first, ".") {
		return "looks like a remote host and no such local path exists"
	}
	return ""
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
	data, err := readBounded(p, rel(f.root, p), 0, f.budget)
	if err != nil {
		return nil, err
	}
	// Everything kustomize reads is YAML to it (resources, patches,
	// generator inputs): the same alias limits as every other input.
	if err := manifest.CheckYAML(data, f.budget.limit()); err != nil {
		return nil, f.refuse(fmt.Errorf("%s: %w", rel(f.root, p), err))
	}
	return data, nil
}

// refuse remembers err as the reason to show, like a violation.
func (f *rootFS) refuse(err error) error {
	f.mu.Lock()
	if f.violation == nil {
		f.violation = err
	}
	f.mu.Unlock()
	return err
}

func (f *rootFS) Walk(p string, fn filepath.WalkFunc) error {
	if err := f.check(p); err != nil {
		return err
	}
	return f.disk.Walk(p, fn)
}
