// Package settings reads the sidecar's settings from an environment with
// the standard library only: the supervising parent reads them before any
// package of Helm or Kubernetes is initialised (internal/entry),
// and plugin.SidecarFromEnv builds every command's configuration from them.
package settings

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxInput bounds how much one render reads from the repository,
// and each input file or stdin.
const DefaultMaxInput = 64 << 20

// DefaultMaxMemory is the resident memory a run may use: well under the
// 1 GiB a repo-server sidecar is commonly given, and far above what
// rendering and filling real applications need (10,000 objects take about
// 100 MiB). The supervisor (internal/supervisor) kills a worker past it;
// internal/guard's watchdog ends the run a little earlier, naming the step.
const DefaultMaxMemory = 768 << 20

// DefaultTimeout bounds a run when the command has no --timeout: well
// inside Argo CD's 60 s exec timeout.
const DefaultTimeout = 40 * time.Second

// Settings are the sidecar's settings, defaults for those unset.
type Settings struct {
	MaxInput     int64         // CMP_DEFAULTS_MAX_INPUT_BYTES
	MaxMemory    int64         // CMP_DEFAULTS_MAX_MEMORY_BYTES
	MaxDocuments int           // CMP_DEFAULTS_MAX_DOCUMENTS; 0: the decoder's own limit
	Timeout      time.Duration // CMP_DEFAULTS_TIMEOUT
	ProfileDirs  []string      // CMP_DEFAULTS_PROFILES_DIR, colon-separated
}

// FromEnv reads the settings from an environment (os.Environ form).
func FromEnv(environ []string) (Settings, error) {
	s := Settings{MaxInput: DefaultMaxInput, MaxMemory: DefaultMaxMemory, Timeout: DefaultTimeout}
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, b := range []struct {
		name string
		dst  *int64
	}{{"CMP_DEFAULTS_MAX_INPUT_BYTES", &s.MaxInput}, {"CMP_DEFAULTS_MAX_MEMORY_BYTES", &s.MaxMemory}} {
		if v := env[b.name]; v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return s, fmt.Errorf("%s=%q: want a positive number of bytes", b.name, v)
			}
			*b.dst = n
		}
	}
	if v := env["CMP_DEFAULTS_MAX_DOCUMENTS"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return s, fmt.Errorf("CMP_DEFAULTS_MAX_DOCUMENTS=%q: want a positive number", v)
		}
		s.MaxDocuments = n
	}
	if v := env["CMP_DEFAULTS_TIMEOUT"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("CMP_DEFAULTS_TIMEOUT=%q: want a duration such as 30s", v)
		}
		s.Timeout = d
	}
	for _, d := range filepath.SplitList(env["CMP_DEFAULTS_PROFILES_DIR"]) {
		if d != "" {
			s.ProfileDirs = append(s.ProfileDirs, d)
		}
	}
	return s, nil
}
