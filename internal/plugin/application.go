package plugin

import (
	"encoding/json"
	"sort"
)

// Application is the part of an Argo CD Application that decides what
// the CMP server hands to generate.
type Application struct {
	Name       string            // metadata.name: ARGOCD_APP_NAME
	Namespace  string            // spec.destination.namespace: ARGOCD_APP_NAMESPACE
	Parameters []Parameter       // spec.source.plugin.parameters
	Env        map[string]string // spec.source.plugin.env, by name
}

// Environ is the environment argocd-cmp-server gives generate for app:
// the build variables, the plugin env with its ARGOCD_ENV_ prefix and the
// parameters as ARGOCD_APP_PARAMETERS. The sidecar's own env is not part
// of it.
func (a Application) Environ() ([]string, error) {
	env := []string{"ARGOCD_APP_NAME=" + a.Name, "ARGOCD_APP_NAMESPACE=" + a.Namespace}
	names := make([]string, 0, len(a.Env))
	for n := range a.Env {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		env = append(env, "ARGOCD_ENV_"+n+"="+a.Env[n])
	}
	if len(a.Parameters) > 0 {
		b, err := json.Marshal(a.Parameters)
		if err != nil {
			return nil, err
		}
		env = append(env, "ARGOCD_APP_PARAMETERS="+string(b))
	}
	return env, nil
}
