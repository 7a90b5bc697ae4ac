package render

import (
	"os"
	"path/filepath"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Settings are what a user sets about how a source renders, whoever
// gives them: flags, generate's parameters and plugin env, an audited
// Application's source, a cluster's capabilities.
type Settings struct {
	ValuesFiles, Set, SetString, SetJSON, SetFile []string
	Values                                        string
	ReleaseName                                   string // "": the directory's name
	Namespace                                     string
	Include, Exclude                              string
	KubeVersion                                   string
	APIVersions                                   []string
}

// NewOptions is the one builder of the options of a source directory, so
// that every command renders alike: the absolute directory, the repository
// root (repoRoot, else the nearest parent holding .git, else the
// directory), the settings s, the input size limit, the decode limits lim
// (the sidecar's; zero: manifest.DefaultLimits) and the run's default
// timeout (settings.DefaultTimeout).
func NewOptions(dir, repoRoot string, maxBytes int64, lim manifest.Limits, s Settings) (Options, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Options{}, err
	}
	if repoRoot == "" {
		repoRoot = FindRepoRoot(abs)
	}
	if s.ReleaseName == "" {
		s.ReleaseName = filepath.Base(abs)
	}
	return Options{Dir: abs, RepoRoot: repoRoot, MaxBytes: maxBytes, Limits: lim, Timeout: settings.DefaultTimeout,
		ValuesFiles: s.ValuesFiles, Values: s.Values, Set: s.Set, SetString: s.SetString, SetJSON: s.SetJSON, SetFile: s.SetFile,
		ReleaseName: s.ReleaseName, Namespace: s.Namespace, Include: s.Include, Exclude: s.Exclude,
		KubeVersion: s.KubeVersion, APIVersions: s.APIVersions}, nil
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
