package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// names says, in messages, how the user changes a setting: a flag on the
// command line; under Argo CD (generate) the parameter or variable that
// set it, since flags mean nothing there.
type names struct {
	plugin bool
	from   map[string]string // generate: setting -> where it was set
}

var flagNames = map[string]string{
	"operators": "--operator", "values-files": "--values", "set": "--set", "set-string": "--set-string",
	"set-json": "--set-json", "set-file": "--set-file",
	"release-name": "--release-name", "include": "--include", "exclude": "--exclude", "strict": "--strict",
	"timeout": "--timeout",
}

var pluginNames = map[string]string{
	"operators": "the parameter operators (or the plugin env CMP_DEFAULTS_OPERATORS)",
	"strict":    "CMP_DEFAULTS_STRICT",
	"timeout":   "CMP_DEFAULTS_TIMEOUT (plugin env, or the sidecar's env in the argocd-repo-server Deployment)",
}

func (n names) of(key string) string {
	if !n.plugin {
		return flagNames[key]
	}
	if f := n.from[key]; f != "" {
		return f
	}
	if p := pluginNames[key]; p != "" {
		return p
	}
	return "parameter " + key
}

// byUser keeps the settings the user chose for this run: under Argo CD,
// those of the Application (parameters, plugin env). The sidecar's own env
// holds an administrator's defaults for every application, which need not
// fit each source.
func (n names) byUser(keys []string) []string {
	if !n.plugin {
		return keys
	}
	var out []string
	for _, k := range keys {
		if !strings.HasPrefix(n.from[k], "env ") {
			out = append(out, k)
		}
	}
	return out
}

// configError is a mistake in generate's configuration: exit 1, since Argo
// CD shows the message and usage text helps nobody there.
type configError struct{ error }

// badSetting reports a wrong value of a setting: a usage mistake on the
// command line, a configuration error under Argo CD naming the setting.
func (n names) badSetting(key string, err error) error {
	var ue usageError
	if errors.As(err, &ue) {
		err = ue.error
	}
	if n.plugin {
		return configError{fmt.Errorf("%s: %v", n.of(key), err)}
	}
	return usageError{err}
}

// resolveError adds to a resolve error how to act on it here.
func (n names) resolveError(err error) error {
	var re *operators.ResolveError
	if !errors.As(err, &re) {
		return err
	}
	switch {
	case re.Unknown && n.plugin:
		return configError{fmt.Errorf("%s: %s (add profiles for it to the ConfigMap cmp-defaults-profiles mounted at $CMP_DEFAULTS_PROFILES_DIR in the sidecar; docs/install.md)", n.of("operators"), re.Msg)}
	case re.Unknown:
		return fmt.Errorf("%s (add your own with --profiles-dir)", re.Msg)
	case re.Strict && n.plugin:
		return configError{fmt.Errorf("%s: %s (an error because %s is true)", n.of("operators"), re.Msg, n.of("strict"))}
	case re.Strict:
		return fmt.Errorf("%s (an error because of --strict)", re.Msg)
	case n.plugin:
		return configError{fmt.Errorf("%s: %s", n.of("operators"), re.Msg)}
	}
	return err
}
