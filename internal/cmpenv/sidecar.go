package cmpenv

import (
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Sidecar is the configuration every command takes from the environment
// of the process (for the plugin: the sidecar container): input limits and
// extra profile directories. Generate's per-Application settings are Config.
type Sidecar struct {
	MaxInput  int64 // bytes per input file or stdin, and per render
	MaxMemory int64 // resident bytes of the run (its worker process)
	// Timeout is the sidecar's CMP_DEFAULTS_TIMEOUT: generate's default
	// and the most an Application's plugin env may ask for.
	Timeout     time.Duration
	Limits      manifest.Limits // documents per stream, nesting, aliases
	ProfileDirs []string        // CMP_DEFAULTS_PROFILES_DIR, colon-separated
	// Sandbox is CMP_DEFAULTS_SANDBOX: how the worker is confined.
	Sandbox settings.Sandbox
}

// SidecarFromEnv reads the sidecar settings from an environment (os.Environ
// form); unset variables keep their defaults.
func SidecarFromEnv(environ []string) (Sidecar, error) {
	st, err := settings.FromEnv(environ)
	s := Sidecar{MaxInput: st.MaxInput, MaxMemory: st.MaxMemory, Limits: manifest.DefaultLimits, Timeout: st.Timeout, ProfileDirs: st.ProfileDirs}
	s.Sandbox = st.Sandbox
	if st.MaxDocuments > 0 {
		s.Limits.MaxDocuments = st.MaxDocuments
	}
	return s, err
}
