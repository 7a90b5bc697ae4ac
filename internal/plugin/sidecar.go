package plugin

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
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
}

// SidecarFromEnv reads the sidecar settings from an environment (os.Environ
// form); unset variables keep their defaults.
func SidecarFromEnv(environ []string) (Sidecar, error) {
	s := Sidecar{MaxInput: render.DefaultMaxBytes, MaxMemory: guard.DefaultMaxMemory, Limits: manifest.DefaultLimits, Timeout: DefaultTimeout}
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
		s.Limits.MaxDocuments = n
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

// SplitList splits comma-separated lists, each value trimmed, empty ones
// dropped: the one way every list setting and flag is split.
func SplitList(values ...string) []string {
	var out []string
	for _, v := range values {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}
