// Package render turns an application source directory into Kubernetes
// objects the way Argo CD would: a Helm chart (Helm 4 SDK, like
// `helm template --include-crds`), a Kustomize directory (krusty, like
// `kustomize build`) or a directory of plain YAML/JSON manifests.
//
// Everything happens in-process and offline. Nothing outside Options.RepoRoot
// is read, not even through symbolic links.
package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Options configures one render.
type Options struct {
	Dir      string // app source directory
	RepoRoot string // repository root; nothing outside it is read. Empty means Dir.

	// Helm charts: values, release, capabilities, as helm spells them.
	settings.Helm
	// Directory sources: which files are read.
	settings.Directory

	// MaxBytes bounds what one render reads from the repository
	// (DefaultMaxBytes when 0).
	MaxBytes int64
	// Limits bound every stream the render decodes, and their documents
	// together (manifest.DefaultLimits when zero): the sidecar's
	// CMP_DEFAULTS_MAX_DOCUMENTS reaches Helm, Kustomize and plain sources.
	Limits manifest.Limits
	// Timeout bounds the render (none when 0).
	Timeout time.Duration
	// Kind is the source's kind when the caller detected it already (to
	// check settings against it); empty: Render detects it.
	Kind Kind
	// Warn receives warnings about the rendered manifests (duplicate
	// keys); nil: none are given.
	Warn func(string)
	// Refs are the roots of other sources' files by ref name: a Helm
	// values file $NAME/PATH is PATH inside Refs[NAME] (a multi-source
	// Application's ref), so that a chart outside the repository can take
	// values files from it.
	Refs map[string]string
	// Origins sets each Kustomize object's Origin (the file it was read
	// from) with kustomize's origin tracking, which makes the build up to
	// 1.4x slower (BenchmarkRenderKustomize200Origins): for explain, the
	// CLI's inputs, and locating an error.
	Origins bool

	budget *budget
	skip   helmSkip // what kustomize's helmCharts leave out
}

// helmSkip is what `helm template` leaves out without --include-crds, and
// with --no-hooks or --skip-tests.
type helmSkip struct{ crds, hooks, tests bool }

// decode reads the objects of a rendered or read manifest stream.
func (o Options) decode(source string, data []byte) ([]manifest.Object, error) {
	return manifest.DecodeWithLimits(source, data, o.limits())
}

// limits are the limits of one decode, warning through Warn.
func (o Options) limits() manifest.Limits {
	lim := o.Limits
	if lim.IsZero() {
		lim = manifest.DefaultLimits
	}
	lim.Warn = o.Warn
	return lim
}

// Kind is the type of an application source.
type Kind string

const (
	KindDirectory Kind = "directory"
	KindHelm      Kind = "helm"
	KindKustomize Kind = "kustomize"
)

// Errors that callers may want to tell apart (use errors.Is).
var (
	// ErrNoSources: a directory source has no manifest files at all.
	ErrNoSources = errors.New("no manifest files")
	// ErrOutsideRoot: something would be read from outside the repository root.
	ErrOutsideRoot = errors.New("outside the repository root")
	// ErrMissingDependency: a Helm dependency is not vendored in charts/.
	ErrMissingDependency = errors.New("missing chart dependency")
	// ErrRemote: the source needs the network (remote base, URL), which is not supported.
	ErrRemote = errors.New("remote source not supported")
)

// KustomizationFiles are the file names that make a directory a Kustomize source.
var KustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Detect says which kind of source dir is. A kustomization file wins over a
// Chart.yaml in the same directory, as in Argo CD's discovery.
func Detect(dir string) (Kind, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("source directory: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("source %s is not a directory", dir)
	}
	for _, name := range KustomizationFiles {
		if isFile(filepath.Join(dir, name)) {
			return KindKustomize, nil
		}
	}
	if isFile(filepath.Join(dir, "Chart.yaml")) {
		return KindHelm, nil
	}
	return KindDirectory, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Render detects the source type of opt.Dir and renders it. The result is in
// a deterministic order: for directories by file path, for Helm in
// `helm template` order, for Kustomize in `kustomize build` order.
func Render(ctx context.Context, opt Options) ([]manifest.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	root, dir, err := resolveRoots(opt.RepoRoot, opt.Dir)
	if err != nil {
		return nil, err
	}
	opt.RepoRoot, opt.Dir = root, dir
	opt.budget = newBudget(opt.MaxBytes)
	if opt.Limits.IsZero() {
		opt.Limits = manifest.DefaultLimits
	}
	opt.Limits = opt.Limits.Counted() // one count of documents per render
	kind := opt.Kind
	if kind == "" {
		if kind, err = Detect(dir); err != nil {
			return nil, err
		}
	}
	switch kind {
	case KindHelm:
		return renderHelm(ctx, opt)
	case KindKustomize:
		objs, err := renderKustomize(ctx, opt)
		// Lines would count in kustomize's output stream, not in the
		// kustomization file the objects are attributed to: give none.
		for i := range objs {
			objs[i].Line = 0
		}
		return objs, err
	default:
		objs, err := renderDirectory(ctx, opt)
		if err != nil {
			err = chartHint(dir, err)
		}
		return objs, err
	}
}

// chartHint adds to a directory source's error that the directory looks
// like a Helm chart without its Chart.yaml (a chart's source such as
// cert-manager's Chart.template.yaml, or a misnamed Chart.yml).
func chartHint(dir string, err error) error {
	for _, name := range []string{"Chart.template.yaml", "Chart.yml", "chart.yaml"} {
		if isFile(filepath.Join(dir, name)) {
			return fmt.Errorf("%w\n(no Chart.yaml found, so this directory was read as plain manifests; %s is not a chart file: Helm reads only Chart.yaml. If this is a chart's source, generate or rename its Chart.yaml first)", err, name)
		}
	}
	return err
}

// resolveRoots makes root and dir absolute and free of symbolic links, and
// checks that dir lies inside root.
func resolveRoots(root, dir string) (string, string, error) {
	if dir == "" {
		return "", "", errors.New("no source directory given")
	}
	if root == "" {
		root = dir
	}
	realRoot, err := realPath(root)
	if err != nil {
		return "", "", fmt.Errorf("repository root: %w", err)
	}
	realDir, err := realPath(dir)
	if err != nil {
		return "", "", fmt.Errorf("source directory: %w", err)
	}
	if !within(realRoot, realDir) {
		return "", "", fmt.Errorf("source directory %s is %w %s", dir, ErrOutsideRoot, realRoot)
	}
	return realRoot, realDir, nil
}

func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether p is root or below it. Both must be clean and absolute.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// rel names p relative to base for messages; p itself when that fails.
func rel(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// checkInside resolves p (which must exist) and fails unless its real path is
// inside root. what names p in the error, as the user wrote it.
func checkInside(root, p, what string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: not found", what)
		}
		return "", fmt.Errorf("%s: %w", what, err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", err
	}
	if !within(root, real) {
		via := ""
		if real != filepath.Clean(p) {
			via = fmt.Sprintf(" (it resolves to %s through a symbolic link)", real)
		}
		return "", fmt.Errorf("%s is %w %s%s; only files inside the repository can be used", what, ErrOutsideRoot, root, via)
	}
	return real, nil
}

// checkSymlinks walks dir and fails on the first symbolic link whose target
// lies outside root or does not exist. Linked directories are followed (Helm's
// chart loader follows them), each real directory once.
func checkSymlinks(ctx context.Context, root, dir string) error {
	seen := map[string]bool{}
	var walk func(real, shown string) error
	walk = func(real, shown string) error {
		if seen[real] {
			return nil
		}
		seen[real] = true
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := os.ReadDir(real)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(real, e.Name())
			name := filepath.Join(shown, e.Name())
			switch {
			case e.Type()&os.ModeSymlink != 0:
				target, err := checkInside(root, p, "symbolic link "+rel(root, name))
				if err != nil {
					return err
				}
				if fi, err := os.Stat(target); err == nil && fi.IsDir() {
					if err := walk(target, name); err != nil {
						return err
					}
				}
			case e.IsDir():
				if err := walk(p, name); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(dir, dir)
}

// runCtx runs f and returns its result, or ctx's error (its cause, named
// after what) as soon as ctx is done.
func runCtx[T any](ctx context.Context, what string, f func() (T, error)) (T, error) {
	v, err := guard.Within(ctx, f)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return v, fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	return v, err
}
