package settings

import "strings"

// Setting is one thing a user sets for a render and fill, with every name
// it goes by: its flag on the command line and, under Argo CD, its plugin
// parameter and plugin env. Messages name a setting through Names, so
// each error says how to change the value where the user set it.
type Setting struct {
	Name  string // the plugin parameter's name where there is one: "operators"
	Flag  string // on the command line: "--operator"; "" when there is none
	Param bool   // an Application sets it as the plugin parameter Name
	Env   string // the plugin env: the Application's ARGOCD_ENV_<Env>, or the sidecar's <Env>
	// unset is how Argo CD users are told to change it when it was not
	// set ("": "parameter " + Name).
	unset string
	// Helm: it applies to Helm charts only; Directory: to directory
	// sources of plain manifests only (Unused in internal/render).
	Helm, Directory bool
}

// The settings of a render and fill.
var (
	Operators = &Setting{Name: "operators", Flag: "--operator", Param: true, Env: "CMP_DEFAULTS_OPERATORS",
		unset: "the parameter operators (or the plugin env CMP_DEFAULTS_OPERATORS)"}
	ValuesFiles = &Setting{Name: "values-files", Flag: "--values", Param: true, Env: "CMP_DEFAULTS_VALUES_FILES", Helm: true}
	Values      = &Setting{Name: "values", Param: true, Env: "CMP_DEFAULTS_VALUES", Helm: true}
	Set         = &Setting{Name: "set", Flag: "--set", Param: true, Helm: true}
	SetString   = &Setting{Name: "set-string", Flag: "--set-string", Helm: true}
	SetJSON     = &Setting{Name: "set-json", Flag: "--set-json", Helm: true}
	SetFile     = &Setting{Name: "set-file", Flag: "--set-file", Helm: true}
	ReleaseName = &Setting{Name: "release-name", Flag: "--release-name", Param: true, Env: "CMP_DEFAULTS_RELEASE_NAME", Helm: true}
	Namespace   = &Setting{Name: "namespace", Flag: "--namespace", Param: true, Env: "CMP_DEFAULTS_NAMESPACE", Helm: true}
	// SkipSchemaValidation is Argo CD's helm.skipSchemaValidation.
	SkipSchemaValidation = &Setting{Name: "skip-schema-validation", Flag: "--skip-schema-validation", Param: true,
		Env: "CMP_DEFAULTS_SKIP_SCHEMA_VALIDATION", Helm: true}
	AllowEmpty = &Setting{Name: "allow-empty", Param: true, Env: "CMP_DEFAULTS_ALLOW_EMPTY"}
	Strict     = &Setting{Name: "strict", Flag: "--strict", Env: "CMP_DEFAULTS_STRICT", unset: "CMP_DEFAULTS_STRICT"}
	Include    = &Setting{Name: "include", Flag: "--include", Env: "CMP_DEFAULTS_INCLUDE", Directory: true}
	Exclude    = &Setting{Name: "exclude", Flag: "--exclude", Env: "CMP_DEFAULTS_EXCLUDE", Directory: true}
	Timeout    = &Setting{Name: "timeout", Flag: "--timeout", Env: "CMP_DEFAULTS_TIMEOUT",
		unset: "CMP_DEFAULTS_TIMEOUT (plugin env, or the sidecar's env in the argocd-repo-server Deployment)"}
)

// All are the settings above, in the order generate --help lists them.
var All = []*Setting{Operators, ValuesFiles, Values, Set, SetString, SetJSON, SetFile, ReleaseName, Namespace,
	SkipSchemaValidation, AllowEmpty, Strict, Include, Exclude, Timeout}

// Applies says what kind of source s is for.
func (s *Setting) Applies() string {
	if s.Directory {
		return "directory sources of plain manifests"
	}
	return "Helm charts"
}

// Names names settings in messages as the user changes them: a flag on
// the command line; under Argo CD (CMP) the parameter or env that set it,
// since flags mean nothing there.
type Names struct {
	CMP  bool
	From map[*Setting]string // under Argo CD: where each setting that was set came from
}

// CLI names settings by their flags.
var CLI = Names{}

// Of names s.
func (n Names) Of(s *Setting) string {
	if !n.CMP {
		if s.Flag != "" {
			return s.Flag
		}
		return s.Name
	}
	if f := n.From[s]; f != "" {
		return f
	}
	if s.unset != "" {
		return s.unset
	}
	return "parameter " + s.Name
}

// ByUser keeps the settings the user chose for this run: under Argo CD,
// those of the Application (parameters, plugin env). The sidecar's own env
// holds an administrator's defaults for every application, which need not
// fit each source.
func (n Names) ByUser(ss []*Setting) []*Setting {
	if !n.CMP {
		return ss
	}
	var out []*Setting
	for _, s := range ss {
		if !strings.HasPrefix(n.From[s], "env ") {
			out = append(out, s)
		}
	}
	return out
}

// Helm is how a Helm chart source renders, as helm spells it: the one
// type the flags, the plugin configuration and the renderer share.
type Helm struct {
	ValuesFiles          []string // -f/--values: relative to the chart, inside the repository
	Values               string   // inline values YAML, applied after ValuesFiles
	Set                  []string // "k=v" like helm --set
	SetString            []string // "k=v" like helm --set-string
	SetJSON              []string // "k=<json>" or a JSON object, like helm --set-json
	SetFile              []string // "k=path" like helm --set-file; paths as ValuesFiles
	ReleaseName          string   // "": the directory's name (under Argo CD the Application's)
	Namespace            string   // .Release.Namespace; "default" when empty, like helm
	SkipSchemaValidation bool     // values are not checked against the charts' values.schema.json
	KubeVersion          string   // .Capabilities.KubeVersion: "1.30", "1.34.0" or "v1.34.0"
	APIVersions          []string // extra .Capabilities.APIVersions: "group/version" or "group/version/Kind"
	// Set by an Application's source (helm.skipCrds, skipTests,
	// ignoreMissingValueFiles), which Argo CD turns into helm's flags.
	SkipCRDs                bool // the chart's crds/ left out (helm --skip-crds; Argo CD otherwise passes --include-crds)
	SkipTests               bool // test hooks left out (helm --skip-tests)
	IgnoreMissingValueFiles bool // a values file that does not exist is left out instead of failing
}

// Chosen reports whether any setting a user gives per chart was given
// (the capabilities describe the cluster, not the chart).
func (h *Helm) Chosen() bool {
	return len(h.ValuesFiles)+len(h.Set)+len(h.SetString)+len(h.SetJSON)+len(h.SetFile) > 0 || h.Values != "" ||
		h.Namespace != "" || h.ReleaseName != "" || h.SkipSchemaValidation
}

// Directory is how a directory source of plain manifests is read: globs
// over paths relative to it, with Argo CD's directory.include/exclude
// syntax ("*" also matches "/", "{a,b}" braces).
type Directory struct {
	Include, Exclude string
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
