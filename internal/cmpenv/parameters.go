package cmpenv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// ParameterSpec is one parameter generate reads. The table Parameters is
// the one place a parameter is declared: FromEnv reads and validates it
// with it, Announce builds the Argo CD UI's form from it and HelpLine
// lists it in generate --help.
type ParameterSpec struct {
	*settings.Setting
	Collection string // string, array or map, as Argo CD sends it
	ItemType   string // boolean for a "true"/"false" string
	Default    string // announced value of a string
	Help       string // the entry in generate --help
	Title      string
	Tooltip    string
	// apply sets the value of p on c, saying whether it chose one (an
	// empty value leaves the plugin env's in force).
	apply func(c *Config, p Parameter) (bool, error)
}

// Parameters are the parameters generate reads, in the order they are
// announced.
var Parameters = []ParameterSpec{
	{Setting: settings.Operators, Collection: "map", Help: "operators (map NAME: VERSION)", Title: "Operator releases",
		Tooltip: "Operator releases running in the destination cluster, NAME: VERSION (e.g. external-secrets: 2.5.0). Their admission defaults are filled into the manifests. Shown: every known operator, empty; set the releases your cluster runs (one of gateway-api and gateway-api-experimental) and leave the others empty, which selects nothing. Wins over the plugin env CMP_DEFAULTS_OPERATORS.",
		apply: func(c *Config, p Parameter) (bool, error) {
			var ops []string
			for _, name := range sortedKeys(p.Map) {
				if v := strings.TrimSpace(p.Map[name]); v != "" { // an operator left empty in the UI is not selected
					ops = append(ops, strings.TrimSpace(name)+"@"+v)
				}
			}
			// A map whose values are all empty (the UI's suggestions left
			// blank) sets nothing: the plugin env still applies.
			if len(ops) > 0 {
				c.Operators = ops
			}
			return len(ops) > 0, nil
		}},
	{Setting: settings.ValuesFiles, Collection: "array", Help: "values-files (array)", Title: "Helm values files",
		Tooltip: "Helm sources: values files relative to the application path, applied in order (they must stay inside the repository).",
		apply:   func(c *Config, p Parameter) (bool, error) { c.ValuesFiles = p.Array; return len(p.Array) > 0, nil }},
	{Setting: settings.Values, Collection: "string", Help: "values (string)", Title: "Helm values (YAML)",
		Tooltip: "Helm sources: inline values as a YAML document, applied after the values files.",
		apply: func(c *Config, p Parameter) (bool, error) {
			c.Values = *p.String
			return strings.TrimSpace(c.Values) != "", nil
		}},
	{Setting: settings.Set, Collection: "map", Help: "set (map)", Title: "Helm --set",
		Tooltip: "Helm sources: KEY: VALUE pairs applied like helm --set, after the values files and inline values.",
		apply: func(c *Config, p Parameter) (bool, error) {
			c.Set = nil
			for _, k := range sortedKeys(p.Map) {
				c.Set = append(c.Set, k+"="+p.Map[k])
			}
			return len(c.Set) > 0, nil
		}},
	{Setting: settings.ReleaseName, Collection: "string", Help: "release-name", Title: "Helm release name",
		Tooltip: "Helm sources: the release name; defaults to the Application name.",
		apply:   func(c *Config, p Parameter) (bool, error) { return setString(&c.ReleaseName, p), nil }},
	{Setting: settings.Namespace, Collection: "string", Help: "namespace", Title: "Helm release namespace",
		Tooltip: "Helm sources: .Release.Namespace; defaults to the Application's destination namespace.",
		apply:   func(c *Config, p Parameter) (bool, error) { return setString(&c.Namespace, p), nil }},
	{Setting: settings.SkipSchemaValidation, Collection: "string", ItemType: "boolean", Default: "false",
		Help: `skip-schema-validation ("true"/"false")`, Title: "Skip Helm schema validation",
		Tooltip: "Helm sources: set to true to render without checking the values against the charts' values.schema.json, as Argo CD's helm.skipSchemaValidation does.",
		apply:   func(c *Config, p Parameter) (bool, error) { return setBool(&c.SkipSchemaValidation, p) }},
	{Setting: settings.AllowEmpty, Collection: "string", ItemType: "boolean", Default: "false", Help: `allow-empty ("true"/"false")`, Title: "Allow an empty result",
		Tooltip: "Set to true only if rendering zero manifests is intended. Otherwise generate fails on an empty result, because with prune: true an empty result deletes every resource of the application.",
		apply:   func(c *Config, p Parameter) (bool, error) { return setBool(&c.AllowEmpty, p) }},
}

// setString sets a string parameter's trimmed value unless it is empty.
func setString(dst *string, p Parameter) bool {
	s := strings.TrimSpace(*p.String)
	if s != "" {
		*dst = s
	}
	return s != ""
}

// setBool sets a "true"/"false" parameter. Only true counts as chosen: the
// form's default false chooses nothing.
func setBool(dst *bool, p Parameter) (bool, error) {
	b, err := strconv.ParseBool(strings.TrimSpace(*p.String))
	if err != nil {
		return false, fmt.Errorf("parameter %s=%q: want true or false", p.Name, *p.String)
	}
	*dst = b
	return b, nil
}

// parameter finds a parameter by name.
func parameter(name string) (ParameterSpec, bool) {
	for _, p := range Parameters {
		if p.Name == name {
			return p, true
		}
	}
	return ParameterSpec{}, false
}

// KnownParameters lists parameter names, sorted.
func KnownParameters() []string {
	var out []string
	for _, p := range Parameters {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// Announcement is one entry of the JSON array that Argo CD reads from a
// plugin's parameters.dynamic command. Field names and meanings are those
// of ParameterAnnouncement in argo-cd's reposerver/apiclient
// (repository.proto); Argo CD ignores fields it does not know.
type Announcement struct {
	Name           string            `json:"name"`
	Title          string            `json:"title,omitempty"`
	Tooltip        string            `json:"tooltip,omitempty"`
	Required       bool              `json:"required,omitempty"`
	ItemType       string            `json:"itemType,omitempty"`
	CollectionType string            `json:"collectionType,omitempty"` // string (default), array or map
	String         string            `json:"string,omitempty"`
	Array          []string          `json:"array,omitempty"`
	Map            map[string]string `json:"map,omitempty"`
}

// Announce lists every parameter for the UI. The operators map offers the
// known operators (NAME: newest checked release) with empty values, which
// select nothing: a form sent back unchanged must not fail (every
// operator selected at once would, Gateway API's two channels among them).
// The newest releases go into the tooltip.
func Announce(operators map[string]string) []Announcement {
	out := make([]Announcement, 0, len(Parameters))
	for _, p := range Parameters {
		a := Announcement{Name: p.Name, Title: p.Title, Tooltip: p.Tooltip, ItemType: p.ItemType, CollectionType: p.Collection, String: p.Default}
		if p.Name == "operators" && len(operators) > 0 {
			a.Map = map[string]string{}
			names := make([]string, 0, len(operators))
			for op := range operators {
				a.Map[op] = ""
				names = append(names, op)
			}
			sort.Strings(names)
			for i, op := range names {
				names[i] = op + " " + operators[op]
			}
			a.Tooltip += " Newest checked releases: " + strings.Join(names, ", ") + "."
		}
		out = append(out, a)
	}
	return out
}

// HelpLine lists the parameters for generate --help after prefix, wrapped
// before width columns with continuation lines indented by indent.
func HelpLine(prefix string, width int, indent string) string {
	items := make([]string, len(Parameters))
	for i, p := range Parameters {
		items[i] = p.Help
	}
	return wrap(prefix, width, indent, items)
}

// EnvHelpLine lists the plugin env for generate --help, as HelpLine does
// the parameters.
func EnvHelpLine(prefix string, width int, indent string) string {
	var items []string
	for _, s := range settings.All {
		if s.Env != "" {
			items = append(items, strings.TrimPrefix(s.Env, "CMP_DEFAULTS_")+envHelp[s])
		}
	}
	return wrap(prefix, width, indent, items)
}

// envHelp says more of the plugin env whose values need it.
var envHelp = map[*settings.Setting]string{
	settings.Operators: " (NAME@VERSION,...)", settings.ValuesFiles: " (comma list)", settings.Timeout: " (default 40s)",
}

// wrap joins items with commas after prefix, wrapped before width columns
// with continuation lines indented by indent.
func wrap(prefix string, width int, indent string, items []string) string {
	var b strings.Builder
	line := prefix
	for i, item := range items {
		if i < len(items)-1 {
			item += ","
		}
		if line != prefix && len(line)+1+len(item) > width {
			b.WriteString(line + "\n")
			line = indent + item
			continue
		}
		if line != prefix {
			line += " "
		}
		line += item
	}
	b.WriteString(line)
	return b.String()
}
