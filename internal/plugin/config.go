// Package plugin reads the configuration of one `generate` run exactly as
// Argo CD's CMP server hands it over: the application parameters
// (ARGOCD_APP_PARAMETERS), the plugin env of the Application
// (ARGOCD_ENV_CMP_DEFAULTS_*), the sidecar's own env (CMP_DEFAULTS_*) and
// the build environment (ARGOCD_APP_NAME, KUBE_VERSION, ...).
//
// Precedence, strongest first: parameters, Application plugin env, sidecar env.
package plugin

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
)

// Config is everything generate needs.
type Config struct {
	Operators   []string // NAME@VERSION
	ValuesFiles []string
	Values      string
	Set         []string // k=v, sorted by key
	ReleaseName string
	Namespace   string
	AllowEmpty  bool
	Strict      bool
	Include     string
	Exclude     string
	KubeVersion string
	APIVersions []string
	Timeout     time.Duration

	AppDir   string // the working directory: the application's path
	RepoRoot string // the unpacked repository's root
	Warnings []string

	// From names where each setting that was set came from, for messages:
	// "parameter operators" or "plugin env CMP_DEFAULTS_OPERATORS".
	// Keys are parameter names, plus strict, include, exclude and timeout.
	From map[string]string
}

// Parameter is one entry of ARGOCD_APP_PARAMETERS.
type Parameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// Known plugin env names (after ARGOCD_ENV_ or on the sidecar).
var envNames = []string{
	"CMP_DEFAULTS_OPERATORS", "CMP_DEFAULTS_VALUES_FILES", "CMP_DEFAULTS_VALUES", "CMP_DEFAULTS_RELEASE_NAME",
	"CMP_DEFAULTS_NAMESPACE", "CMP_DEFAULTS_ALLOW_EMPTY", "CMP_DEFAULTS_STRICT", "CMP_DEFAULTS_INCLUDE",
	"CMP_DEFAULTS_EXCLUDE", "CMP_DEFAULTS_TIMEOUT",
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
	c := &Config{Timeout: side.Timeout, From: map[string]string{}}

	// Unknown names are mistakes: say so rather than ignore a typo.
	known := map[string]bool{}
	for _, n := range envNames {
		known[n] = true
	}
	for k := range env {
		if n, ok := strings.CutPrefix(k, "ARGOCD_ENV_"); ok && strings.HasPrefix(n, "CMP_DEFAULTS_") && !known[n] && env[k] != "" {
			return nil, fmt.Errorf("unknown plugin env %s; known: %s", n, strings.Join(envNames, ", "))
		}
	}
	// lookup finds a plugin env value: the Application's, else the sidecar's.
	lookup := func(name string) (string, bool) {
		if v, ok := env["ARGOCD_ENV_"+name]; ok && v != "" {
			return v, true
		}
		v, ok := env[name]
		return v, ok && v != ""
	}
	for key, name := range map[string]string{"operators": "CMP_DEFAULTS_OPERATORS", "values-files": "CMP_DEFAULTS_VALUES_FILES",
		"values": "CMP_DEFAULTS_VALUES", "release-name": "CMP_DEFAULTS_RELEASE_NAME", "namespace": "CMP_DEFAULTS_NAMESPACE", "strict": "CMP_DEFAULTS_STRICT",
		"include": "CMP_DEFAULTS_INCLUDE", "exclude": "CMP_DEFAULTS_EXCLUDE", "timeout": "CMP_DEFAULTS_TIMEOUT"} {
		if v := env["ARGOCD_ENV_"+name]; v != "" {
			c.From[key] = "plugin env " + name + " (the Application's spec.source.plugin.env)"
		} else if env[name] != "" {
			c.From[key] = "env " + name + " (the cmp-defaults sidecar container)"
		}
	}
	if v, ok := lookup("CMP_DEFAULTS_OPERATORS"); ok {
		c.Operators = SplitList(v)
	}
	if v, ok := lookup("CMP_DEFAULTS_VALUES_FILES"); ok {
		c.ValuesFiles = SplitList(v)
	}
	if v, ok := lookup("CMP_DEFAULTS_VALUES"); ok {
		c.Values = v
	}
	c.ReleaseName = env["ARGOCD_APP_NAME"]
	if v, ok := lookup("CMP_DEFAULTS_RELEASE_NAME"); ok {
		c.ReleaseName = v
	}
	c.Namespace = env["ARGOCD_APP_NAMESPACE"]
	if v, ok := lookup("CMP_DEFAULTS_NAMESPACE"); ok {
		c.Namespace = v
	}
	for name, dst := range map[string]*bool{"CMP_DEFAULTS_ALLOW_EMPTY": &c.AllowEmpty, "CMP_DEFAULTS_STRICT": &c.Strict} {
		if v, ok := lookup(name); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("plugin env %s=%q: want true or false", name, v)
			}
			*dst = b
		}
	}
	if v, ok := lookup("CMP_DEFAULTS_INCLUDE"); ok {
		c.Include = v
	}
	if v, ok := lookup("CMP_DEFAULTS_EXCLUDE"); ok {
		c.Exclude = v
	}
	// The sidecar's timeout (the admin's) is the default and the most an
	// Application (a tenant) may ask for.
	if v := env["ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("plugin env CMP_DEFAULTS_TIMEOUT=%q: want a duration such as 30s", v)
		}
		if d > c.Timeout {
			return nil, fmt.Errorf("plugin env CMP_DEFAULTS_TIMEOUT=%q is more than the %s the sidecar allows; ask for at most %s, or have the Argo CD admin raise CMP_DEFAULTS_TIMEOUT on the cmp-defaults sidecar container", v, c.Timeout, c.Timeout)
		}
		c.Timeout = d
	}
	c.KubeVersion = env["KUBE_VERSION"]
	c.APIVersions = SplitList(env["KUBE_API_VERSIONS"])

	if raw := strings.TrimSpace(env["ARGOCD_APP_PARAMETERS"]); raw != "" {
		if err := c.applyParameters(raw); err != nil {
			return nil, err
		}
	}

	if c.Namespace != "" {
		// It reaches templates as .Release.Namespace: a line break in it
		// could add keys to (and change the kind of) rendered objects.
		if errs := validation.IsDNS1123Label(c.Namespace); len(errs) > 0 {
			from, hint := c.From["namespace"], ""
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

func (c *Config) applyParameters(raw string) error {
	var params []Parameter
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&params); err != nil {
		return fmt.Errorf("ARGOCD_APP_PARAMETERS is not a JSON array of {name, string|array|map}: %v", err)
	}
	for _, p := range params {
		spec, ok := parameter(p.Name)
		want := spec.Collection
		if !ok {
			return fmt.Errorf("unknown parameter %q; known parameters: %s", p.Name, strings.Join(KnownParameters(), ", "))
		}
		got := p.kind()
		if got != want {
			return fmt.Errorf("parameter %q must be %s, got %s", p.Name, article(want), article(got))
		}
		switch p.Name {
		case "operators":
			var ops []string
			for _, name := range sortedKeys(p.Map) {
				v := strings.TrimSpace(p.Map[name])
				if v == "" {
					continue // an operator left empty in the UI is not selected
				}
				ops = append(ops, strings.TrimSpace(name)+"@"+v)
			}
			// A map whose values are all empty (the UI's suggestions left
			// blank) sets nothing: the plugin env still applies.
			if len(ops) > 0 {
				c.Operators = ops
				c.From["operators"] = "parameter operators"
			}
		case "values-files":
			c.ValuesFiles = p.Array
			if len(p.Array) > 0 {
				c.From[p.Name] = "parameter " + p.Name
			}
		case "values":
			c.Values = *p.String
			if strings.TrimSpace(c.Values) != "" {
				c.From[p.Name] = "parameter " + p.Name
			}
		case "set":
			c.Set = nil
			for _, k := range sortedKeys(p.Map) {
				c.Set = append(c.Set, k+"="+p.Map[k])
			}
			if len(c.Set) > 0 {
				c.From[p.Name] = "parameter " + p.Name
			}
		case "release-name":
			if s := strings.TrimSpace(*p.String); s != "" {
				c.ReleaseName = s
				c.From[p.Name] = "parameter " + p.Name
			}
		case "namespace":
			if s := strings.TrimSpace(*p.String); s != "" {
				c.Namespace = s
				c.From[p.Name] = "parameter " + p.Name
			}
		case "allow-empty":
			b, err := strconv.ParseBool(strings.TrimSpace(*p.String))
			if err != nil {
				return fmt.Errorf("parameter allow-empty=%q: want true or false", *p.String)
			}
			c.AllowEmpty = b
		}
	}
	return nil
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
