package argocd

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// BuildEnv is what the repo-server substitutes into a source's Helm
// parameters, file parameter paths and Kustomize images: the
// Application's name, namespace and project, the revision rendered ("" when
// not known), and the source.
func (s *Source) BuildEnv(revision string) map[string]string {
	return map[string]string{
		"ARGOCD_APP_NAME": s.App, "ARGOCD_APP_NAMESPACE": s.Namespace, "ARGOCD_APP_PROJECT_NAME": s.Project,
		"ARGOCD_APP_REVISION": revision, "ARGOCD_APP_REVISION_SHORT": prefix(revision, 7), "ARGOCD_APP_REVISION_SHORT_8": prefix(revision, 8),
		"ARGOCD_APP_SOURCE_REPO_URL": s.RepoURL, "ARGOCD_APP_SOURCE_PATH": s.Path, "ARGOCD_APP_SOURCE_TARGET_REVISION": s.TargetRevision,
	}
}

func prefix(s string, n int) string { return s[:min(n, len(s))] }

// Envsubst replaces $NAME and ${NAME} in s with env's value as the
// repo-server does: a name env lacks becomes empty, and $$ is $.
func Envsubst(s string, env map[string]string) string {
	return os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		return env[name]
	})
}

// KubeVersion is a Kubernetes version as the repo-server passes it to Helm
// and to a plugin's KUBE_VERSION: the numbers only, without the leading v
// or a vendor's suffix ("v1.30.4-eks-1a2b3c4" is "1.30.4"). "" stays "".
func KubeVersion(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	kv, err := version.ParseGeneric(v)
	if err != nil {
		return "", err
	}
	return kv.String(), nil
}

// Settings are the Application's Helm settings and directory
// include/exclude, so the source renders as Argo CD renders it for that
// Application at revision ("" when not known); none for a nil src.
func Settings(src *Source, revision string) (h settings.Helm, d settings.Directory) {
	if src == nil {
		return h, d
	}
	d.Include, d.Exclude = src.Include, src.Exclude
	h.ValuesFiles = src.ValueFiles
	h.Values = src.Values
	h.Namespace = src.Namespace
	if src.HelmNamespace != "" {
		h.Namespace = src.HelmNamespace
	}
	h.SkipSchemaValidation = src.SkipSchemaValidation
	h.SkipCRDs, h.SkipTests, h.IgnoreMissingValueFiles = src.SkipCRDs, src.SkipTests, src.IgnoreMissingValueFiles
	h.KubeVersion, h.APIVersions = src.KubeVersion, slices.Clone(src.APIVersions)
	switch {
	case src.ReleaseName != "":
		h.ReleaseName = src.ReleaseName
	case src.App != "" && !templated(src.App):
		h.ReleaseName = src.App // Argo CD's default release name
	}
	env := src.BuildEnv(revision)
	for _, p := range src.Parameters {
		if p.ForceString {
			h.SetString = append(h.SetString, p.Name+"="+Envsubst(p.Value, env))
		} else {
			h.Set = append(h.Set, p.Name+"="+Envsubst(p.Value, env))
		}
	}
	for _, p := range src.FileParameters {
		h.SetFile = append(h.SetFile, p.Name+"="+Envsubst(p.Path, env))
	}
	return h, d
}

// Plugin is spec.source.plugin of an Application that names the
// cmp-defaults plugin.
type Plugin struct {
	Parameters []cmpenv.Parameter // spec.source.plugin.parameters
	Env        map[string]string  // spec.source.plugin.env, by name
}

// PluginEnviron is the environment argocd-cmp-server gives generate for
// the source: the build variables, the plugin env with its ARGOCD_ENV_
// prefix and the parameters as ARGOCD_APP_PARAMETERS. The sidecar's own
// env is not part of it.
func (s *Source) PluginEnviron() ([]string, error) {
	env := []string{"ARGOCD_APP_NAME=" + s.App, "ARGOCD_APP_NAMESPACE=" + s.Namespace}
	for _, n := range slices.Sorted(maps.Keys(s.Plugin.Env)) {
		env = append(env, "ARGOCD_ENV_"+n+"="+s.Plugin.Env[n])
	}
	if len(s.Plugin.Parameters) > 0 {
		b, err := json.Marshal(s.Plugin.Parameters)
		if err != nil {
			return nil, err
		}
		env = append(env, "ARGOCD_APP_PARAMETERS="+string(b))
	}
	return env, nil
}

// PluginConfig is the configuration generate reads for a source that
// names the cmp-defaults plugin, from the environment argocd-cmp-server
// would build for it (PluginEnviron) with the sidecar settings side, with
// dir the source directory and repoRoot its repository.
func (s *Source) PluginConfig(dir, repoRoot string, side cmpenv.Sidecar) (*cmpenv.Config, error) {
	env, err := s.PluginEnviron()
	if err != nil {
		return nil, err
	}
	cfg, err := cmpenv.FromEnv(env, dir, side)
	if err != nil {
		return nil, fmt.Errorf("the plugin settings of Application %s (%s.plugin): %v", s.App, s.Field, err)
	}
	cfg.RepoRoot = repoRoot
	return cfg, nil
}

// Collect reads the ignoreDifferences rules of the Application and
// ApplicationSet files apps and of the argocd-cm files cms, with read;
// readFile gives each rule its line. A file that has none of them is an
// error: the user named the wrong one.
func Collect(apps, cms []string, read func([]string) ([]manifest.Object, error), readFile func(string) ([]byte, error)) (*Found, error) {
	found := &Found{}
	if len(apps) > 0 {
		objs, err := read(apps)
		if err != nil {
			return nil, err
		}
		if found, err = Extract(objs); err != nil {
			return nil, err
		}
		if found.Apps == 0 && found.ConfigMaps == 0 {
			return nil, fmt.Errorf("%s: no Argo CD Application, ApplicationSet or argocd-cm ConfigMap found", strings.Join(apps, ", "))
		}
	}
	for _, f := range cms {
		objs, err := read([]string{f})
		if err != nil {
			return nil, err
		}
		if err := found.addConfigMaps(f, objs); err != nil {
			return nil, err
		}
	}
	found.SetLines(readFile)
	return found, nil
}

// addConfigMaps adds the ignoreDifferences keys of the ConfigMaps among
// objs, read from file; a file without one is an error.
func (f *Found) addConfigMaps(file string, objs []manifest.Object) error {
	n := 0
	for _, ob := range objs {
		if k, _ := ob.Data["kind"].(string); k == "ConfigMap" {
			if err := f.AddConfigMap(ob); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: no ConfigMap found (expected argocd-cm)", file)
	}
	return nil
}

// SameRepo says whether two repository URLs name the same repository, as
// Argo CD compares them: scheme, user, port, letter case, a trailing
// slash and ".git" aside, and scp-like git@host:path as host/path.
func SameRepo(a, b string) bool { return normalizeRepo(a) == normalizeRepo(b) }

func normalizeRepo(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at, colon := strings.Index(u, "@"), strings.Index(u, ":"); at >= 0 && colon > at {
		u = u[:colon] + "/" + u[colon+1:] // git@host:org/repo
	}
	host, path, _ := strings.Cut(u, "/")
	if _, h, ok := strings.Cut(host, "@"); ok {
		host = h
	}
	host, _, _ = strings.Cut(host, ":")
	path = strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	return host + "/" + path
}
