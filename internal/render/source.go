package render

import (
	"os"
	"path/filepath"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// NewOptions is the one builder of the options of a source directory, so
// that every command renders alike: the absolute directory, the repository
// root (repoRoot, else the nearest parent holding .git, else the
// directory), the Helm and directory settings, the input size limit, the decode limits lim
// (the sidecar's; zero: manifest.DefaultLimits) and the run's default
// timeout (settings.DefaultTimeout).
func NewOptions(dir, repoRoot string, maxBytes int64, lim manifest.Limits, h settings.Helm, d settings.Directory) (Options, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Options{}, err
	}
	if repoRoot == "" {
		repoRoot = FindRepoRoot(abs)
	}
	if h.ReleaseName == "" {
		h.ReleaseName = filepath.Base(abs)
	}
	return Options{Dir: abs, RepoRoot: repoRoot, MaxBytes: maxBytes, Limits: lim, Timeout: settings.DefaultTimeout, Helm: h, Directory: d}, nil
}

// FindRepoRoot is the nearest parent of dir holding .git, else dir.
func FindRepoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
