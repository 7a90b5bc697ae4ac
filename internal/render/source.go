package render

import (
	"os"
	"path/filepath"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// DefaultTimeout bounds a render when the command has no --timeout: the
// same as generate's default, well inside Argo CD's 60 s exec timeout.
const DefaultTimeout = settings.DefaultTimeout

// NewOptions are the options every command starts from for a source
// directory, so that they agree: the absolute directory, the repository
// root (repoRoot, else the nearest parent holding .git, else the
// directory), the release name (the directory's name), the input size
// limit and DefaultTimeout. Callers add their Helm settings.
func NewOptions(dir, repoRoot string, maxBytes int64) (Options, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Options{}, err
	}
	if repoRoot == "" {
		repoRoot = FindRepoRoot(abs)
	}
	return Options{Dir: abs, RepoRoot: repoRoot, ReleaseName: filepath.Base(abs), MaxBytes: maxBytes, Timeout: DefaultTimeout}, nil
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
