package plugin

import "strings"

// Names says, in messages, how the user changes a setting: a flag on the
// command line; under Argo CD (generate) the parameter or variable that
// set it, since flags mean nothing there. Keys are parameter names, plus
// strict, include, exclude and timeout.
type Names struct {
	Plugin bool
	From   map[string]string // generate: setting -> where it was set (Config.From)
}

var flagNames = map[string]string{
	"operators": "--operator", "values-files": "--values", "set": "--set", "set-string": "--set-string",
	"set-json": "--set-json", "set-file": "--set-file",
	"release-name": "--release-name", "namespace": "--namespace", "include": "--include", "exclude": "--exclude", "strict": "--strict",
	"timeout": "--timeout",
}

var pluginNames = map[string]string{
	"operators": "the parameter operators (or the plugin env CMP_DEFAULTS_OPERATORS)",
	"strict":    "CMP_DEFAULTS_STRICT",
	"timeout":   "CMP_DEFAULTS_TIMEOUT (plugin env, or the sidecar's env in the argocd-repo-server Deployment)",
}

// Of names the setting key.
func (n Names) Of(key string) string {
	if !n.Plugin {
		return flagNames[key]
	}
	if f := n.From[key]; f != "" {
		return f
	}
	if p := pluginNames[key]; p != "" {
		return p
	}
	return "parameter " + key
}

// ByUser keeps the settings the user chose for this run: under Argo CD,
// those of the Application (parameters, plugin env). The sidecar's own env
// holds an administrator's defaults for every application, which need not
// fit each source.
func (n Names) ByUser(keys []string) []string {
	if !n.Plugin {
		return keys
	}
	var out []string
	for _, k := range keys {
		if !strings.HasPrefix(n.From[k], "env ") {
			out = append(out, k)
		}
	}
	return out
}
