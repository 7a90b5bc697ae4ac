// Package cmpenv reads the configuration of one `generate` run exactly as
// Argo CD's CMP server hands it over: the application parameters
// (ARGOCD_APP_PARAMETERS), the plugin env of the Application
// (ARGOCD_ENV_CMP_DEFAULTS_*), the sidecar's own env (CMP_DEFAULTS_*) and
// the build environment (ARGOCD_APP_NAME, KUBE_VERSION, ...).
//
// Precedence, strongest first: parameters, Application plugin env, sidecar env.
package cmpenv

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Config is everything generate needs.
type Config struct {
	Operators []string // NAME@VERSION, split once
	settings.Helm
	settings.Directory
	AllowEmpty bool
	Strict     bool
	Timeout    time.Duration

	AppDir   string // the working directory: the application's path
	RepoRoot string // the unpacked repository's root
	Warnings []string

	// From names where each setting that was set came from, for messages:
	// "parameter operators" or "plugin env CMP_DEFAULTS_OPERATORS (...)".
	From map[*settings.Setting]string
}

// Names names the settings of c in messages: where each was set.
func (c *Config) Names() settings.Names { return settings.Names{CMP: true, From: c.From} }

// Parameter is one entry of ARGOCD_APP_PARAMETERS.
type Parameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// FromEnv builds the configuration from an environment (os.Environ form)
// and the working directory. side is the sidecar's own configuration, read
// from the same environment by SidecarFromEnv: its timeout is the default
// and the most an Application may ask for.
func FromEnv(environ []string, wd string, side Sidecar) (*Config, error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	c := &Config{Timeout: side.Timeout, From: map[*settings.Setting]string{}}
	c.ReleaseName, c.Namespace = env["ARGOCD_APP_NAME"], env["ARGOCD_APP_NAMESPACE"]
	c.KubeVersion, c.APIVersions = env["KUBE_VERSION"], settings.SplitList(env["KUBE_API_VERSIONS"])
	if err := c.applyEnv(env); err != nil {
		return nil, err
	}
	if raw := strings.TrimSpace(env["ARGOCD_APP_PARAMETERS"]); raw != "" {
		if err := c.applyParameters(raw); err != nil {
			return nil, err
		}
	}
	if c.Namespace != "" {
		// It reaches templates as .Release.Namespace: a line break in it
		// could add keys to (and change the kind of) rendered objects.
		if errs := validation.IsDNS1123Label(c.Namespace); len(errs) > 0 {
			from, hint := c.From[settings.Namespace], ""
			if from == "" {
				from, hint = "ARGOCD_APP_NAMESPACE (the Application's destination namespace)", "; set the parameter namespace"
			}
			return nil, fmt.Errorf("%s: namespace %q is not a valid namespace name: %s%s", from, c.Namespace, strings.Join(errs, "; "), hint)
		}
	}
	root, dir, warn, err := repoRoot(wd, env["ARGOCD_APP_SOURCE_PATH"])
	if err != nil {
		return nil, err
	}
	c.RepoRoot, c.AppDir = root, dir
	if warn != "" {
		c.Warnings = append(c.Warnings, warn)
	}
	return c, nil
}

// applyEnv sets what the plugin env gives: the Application's
// (ARGOCD_ENV_<name>), else the sidecar's (<name>).
func (c *Config) applyEnv(env map[string]string) error {
	// Unknown names are mistakes: say so rather than ignore a typo.
	var known []string
	for _, s := range settings.All {
		if s.Env != "" {
			known = append(known, s.Env)
		}
	}
	for k := range env {
		if n, ok := strings.CutPrefix(k, "ARGOCD_ENV_"); ok && strings.HasPrefix(n, "CMP_DEFAULTS_") && !contains(known, n) && env[k] != "" {
			return fmt.Errorf("unknown plugin env %s; known: %s", n, strings.Join(known, ", "))
		}
	}
	for _, s := range settings.All {
		if s.Env == "" {
			continue
		}
		v, app := env["ARGOCD_ENV_"+s.Env], true
		switch {
		case v != "":
			c.From[s] = "plugin env " + s.Env + " (the Application's spec.source.plugin.env)"
		case env[s.Env] != "":
			v, app = env[s.Env], false
			c.From[s] = "env " + s.Env + " (the cmp-defaults sidecar container)"
		default:
			continue
		}
		if err := c.setEnv(s, v, app); err != nil {
			return err
		}
	}
	return nil
}

// setEnv sets s to v, a plugin env value; app: the Application's.
func (c *Config) setEnv(s *settings.Setting, v string, app bool) error {
	if s == settings.Timeout {
		return c.setTimeout(v, app)
	}
	switch dst := c.field(s).(type) {
	case *[]string:
		*dst = settings.SplitList(v)
	case *string:
		*dst = v
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("plugin env %s=%q: want true or false", s.Env, v)
		}
		*dst = b
	}
	return nil
}

// field is where c keeps the value of s.
func (c *Config) field(s *settings.Setting) any {
	return map[*settings.Setting]any{
		settings.Operators: &c.Operators, settings.ValuesFiles: &c.ValuesFiles, settings.Values: &c.Values,
		settings.ReleaseName: &c.ReleaseName, settings.Namespace: &c.Namespace, settings.Include: &c.Include,
		settings.Exclude: &c.Exclude, settings.AllowEmpty: &c.AllowEmpty, settings.Strict: &c.Strict,
		settings.SkipSchemaValidation: &c.SkipSchemaValidation,
	}[s]
}

// setTimeout sets the plugin env's timeout. The sidecar's (the admin's,
// read by main) is the default and the most an Application (a tenant)
// may ask for.
func (c *Config) setTimeout(v string, app bool) error {
	if !app {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("plugin env CMP_DEFAULTS_TIMEOUT=%q: want a duration such as 30s", v)
	}
	if d > c.Timeout {
		return fmt.Errorf("plugin env CMP_DEFAULTS_TIMEOUT=%q is more than the %s the sidecar allows; ask for at most %s, or have the Argo CD admin raise CMP_DEFAULTS_TIMEOUT on the cmp-defaults sidecar container", v, c.Timeout, c.Timeout)
	}
	c.Timeout = d
	return nil
}

func (c *Config) applyParameters(raw string) error {
	var params []Parameter
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&params); err != nil {
		return fmt.Errorf("ARGOCD_APP_PARAMETERS is not a JSON array of {name, string|array|map}: %v", err)
	}
	for _, p := range params {
		spec, ok := parameter(p.Name)
		if !ok {
			return fmt.Errorf("unknown parameter %q; known parameters: %s", p.Name, strings.Join(KnownParameters(), ", "))
		}
		if got := p.kind(); got != spec.Collection {
			return fmt.Errorf("parameter %q must be %s, got %s", p.Name, article(spec.Collection), article(got))
		}
		set, err := spec.apply(c, p)
		if err != nil {
			return err
		}
		if set {
			c.From[spec.Setting] = "parameter " + p.Name
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p Parameter) kind() string {
	switch {
	case p.Map != nil:
		return "map"
	case p.Array != nil:
		return "array"
	case p.String != nil:
		return "string"
	}
	// Argo CD omits empty collections: an empty map or array arrives bare.
	if spec, ok := parameter(p.Name); ok && spec.Collection != "string" {
		return spec.Collection
	}
	return "value-less parameter"
}

// repoRoot finds the repository root by removing ARGOCD_APP_SOURCE_PATH
// from the working directory, as Argo CD's CMP server made the working
// directory by joining the two. Only a relative, clean path that matches the
// working directory is accepted: an absolute one, one that leaves the
// repository, or one with more components than the working directory has
// would widen the root to a parent (or to /), through which a symbolic link
// in the application could read files of other repositories.
func repoRoot(wd, sourcePath string) (root, dir, warning string, err error) {
	dir, err = filepath.EvalSymlinks(wd)
	if err != nil {
		return "", "", "", fmt.Errorf("working directory: %v", err)
	}
	sp := strings.TrimSuffix(sourcePath, "/")
	if sp == "" || sp == "." {
		return dir, dir, "", nil
	}
	refuse := func(why string) (string, string, string, error) {
		return "", "", "", fmt.Errorf("ARGOCD_APP_SOURCE_PATH %q %s; it must be the application's path relative to the repository root, as Argo CD sets it, and the working directory (%s) must end with it", sourcePath, why, dir)
	}
	if strings.HasPrefix(sp, "/") || filepath.IsAbs(sp) {
		return refuse("is absolute")
	}
	if sp == ".." || strings.HasPrefix(sp, "../") {
		return refuse("leaves the repository")
	}
	if filepath.Clean(sp) != sp {
		return refuse("is not a clean path (it has '..', '.' or empty components)")
	}
	root = dir
	for range strings.Split(sp, "/") {
		if filepath.Dir(root) == root {
			return refuse("has more components than the working directory")
		}
		root = filepath.Dir(root)
	}
	if filepath.Join(root, sp) != dir {
		return refuse("does not match the working directory")
	}
	if filepath.Dir(root) == root {
		return refuse("would make / the repository root")
	}
	// Argo CD unpacks each repository into its own directory below the
	// temporary directory, never into the temporary directory itself.
	if tmp, err := filepath.EvalSymlinks(os.TempDir()); err == nil && within(root, tmp) {
		return refuse(fmt.Sprintf("would make %s, which holds the temporary directory %s, the repository root", root, tmp))
	}
	return root, dir, "", nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// article puts "a" or "an" before a type name.
func article(s string) string {
	if strings.IndexByte("aeiou", s[0]) >= 0 {
		return "an " + s
	}
	return "a " + s
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && (r == "." || (r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))))
}
