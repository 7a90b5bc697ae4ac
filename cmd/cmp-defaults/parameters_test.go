package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// runParameters runs `cmp-defaults parameters ARGS...` and decodes its output
// strictly into the announcement type (unknown fields fail).
func runParameters(t *testing.T, args ...string) []cmpenv.Announcement {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"parameters"}, args...), strings.NewReader(""), &stdout, &stderr)
	if code != supervisor.ExitOK {
		t.Fatalf("parameters exited %d: %s", code, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	dec.DisallowUnknownFields()
	var got []cmpenv.Announcement
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("output is not a JSON array of announcements: %v\n%s", err, stdout.String())
	}
	return got
}

func byName(list []cmpenv.Announcement) map[string]cmpenv.Announcement {
	m := map[string]cmpenv.Announcement{}
	for _, a := range list {
		m[a.Name] = a
	}
	return m
}

func TestParametersAnnouncesEveryParameter(t *testing.T) {
	t.Setenv("CMP_DEFAULTS_PROFILES_DIR", "")
	got := runParameters(t)

	want := map[string]string{ // name -> collectionType
		"operators":              "map",
		"values-files":           "array",
		"values":                 "string",
		"set":                    "map",
		"release-name":           "string",
		"namespace":              "string",
		"allow-empty":            "string",
		"skip-schema-validation": "string",
	}
	if len(got) != len(want) {
		t.Errorf("announced %d parameters, want %d", len(got), len(want))
	}
	seen := map[string]bool{}
	for _, a := range got {
		if seen[a.Name] {
			t.Errorf("parameter %q announced twice", a.Name)
		}
		seen[a.Name] = true
		ct, ok := want[a.Name]
		if !ok {
			t.Errorf("unexpected parameter %q", a.Name)
			continue
		}
		// Argo CD: collectionType must be present for non-string types, and
		// only the field of that type is used.
		if a.CollectionType != ct {
			t.Errorf("%s: collectionType %q, want %q", a.Name, a.CollectionType, ct)
		}
		if a.Title == "" || a.Tooltip == "" {
			t.Errorf("%s: needs a title and a tooltip for the UI", a.Name)
		}
		if a.Required {
			t.Errorf("%s: no parameter is required (operators may come from plugin env)", a.Name)
		}
		switch ct {
		case "map":
			if a.String != "" || a.Array != nil {
				t.Errorf("%s: a map parameter carries a string or array default", a.Name)
			}
		case "array":
			if a.String != "" || a.Map != nil {
				t.Errorf("%s: an array parameter carries a string or map default", a.Name)
			}
		case "string":
			if a.Array != nil || a.Map != nil {
				t.Errorf("%s: a string parameter carries an array or map default", a.Name)
			}
		}
	}
	if s := byName(got)["allow-empty"].String; s != "false" {
		t.Errorf("allow-empty default %q, want \"false\"", s)
	}
}

func TestParametersOperatorsAreShippedNewest(t *testing.T) {
	t.Setenv("CMP_DEFAULTS_PROFILES_DIR", "")
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	sums, err := st.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	a := byName(runParameters(t))["operators"]
	if len(a.Map) != len(sums) {
		t.Errorf("operators %v, want every one of %d", a.Map, len(sums))
	}
	for _, s := range sums {
		// Offered empty (selects nothing), the newest release in the tooltip.
		if v, ok := a.Map[s.Operator]; !ok || v != "" {
			t.Errorf("operators[%s] = %q, %v; want offered empty", s.Operator, v, ok)
		}
		if want := s.Operator + " " + strings.TrimPrefix(s.Newest, "v"); !strings.Contains(a.Tooltip, want) {
			t.Errorf("tooltip lacks %q: %s", want, a.Tooltip)
		}
		if _, _, err := operators.ParseRef(s.Operator + "@" + strings.TrimPrefix(s.Newest, "v")); err != nil {
			t.Errorf("newest release is not a valid reference: %v", err)
		}
	}
}

// The form sent back unchanged (every operator, both Gateway API
// channels, failed with "select only one") selects nothing: the plugin env
// decides.
func TestParametersSentBackUnchanged(t *testing.T) {
	t.Setenv("CMP_DEFAULTS_PROFILES_DIR", "")
	var params []map[string]any
	for _, a := range runParameters(t) {
		switch {
		case a.Map != nil:
			params = append(params, map[string]any{"name": a.Name, "map": a.Map})
		case a.String != "":
			params = append(params, map[string]any{"name": a.Name, "string": a.String})
		}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cmpenv.FromEnv([]string{"ARGOCD_APP_PARAMETERS=" + string(raw), "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0"}, t.TempDir(), cmpenv.Sidecar{Timeout: settings.DefaultTimeout})
	if err != nil {
		t.Fatalf("generate rejects the announcement sent back: %v\n%s", err, raw)
	}
	if !reflect.DeepEqual(cfg.Operators, []string{"external-secrets@2.5.0"}) {
		t.Errorf("operators %v, want only the plugin env's", cfg.Operators)
	}
}

// A profiles directory (the ConfigMap mounted in the sidecar) adds operators
// and newer releases to the announcement.
func TestParametersHonorProfilesDir(t *testing.T) {
	dir := t.TempDir()
	profile := `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: example-operator
version: v0.3.1
description: test profile
resources:
  - group: example.com
    version: v1
    kind: Widget
    defaults:
      - path: .spec.mode
        type: string
        value: Auto
`
	if err := os.WriteFile(filepath.Join(dir, "example-operator-v0.3.1.yaml"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Setenv("CMP_DEFAULTS_PROFILES_DIR", dir)
	for _, args := range [][]string{nil, {"--profiles-dir", dir}} {
		if args != nil {
			t.Setenv("CMP_DEFAULTS_PROFILES_DIR", "")
		}
		a := byName(runParameters(t, args...))["operators"]
		if _, ok := a.Map["example-operator"]; !ok || !strings.Contains(a.Tooltip, "example-operator 0.3.1") {
			t.Errorf("%v: example-operator not offered with its newest release 0.3.1: %v, %s", args, a.Map, a.Tooltip)
		}
		if _, ok := a.Map["external-secrets"]; !ok {
			t.Errorf("%v: shipped operators missing when a profiles dir is set: %v", args, a.Map)
		}
	}
}

// A broken user profile is an error that names the file: the UI shows it
// instead of silently announcing a partial list.
func TestParametersBrokenProfilesDir(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CMP_DEFAULTS_PROFILES_DIR", dir)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"parameters"}, strings.NewReader(""), &stdout, &stderr)
	if code != supervisor.ExitError {
		t.Fatalf("exit %d, want %d; stderr: %s", code, supervisor.ExitError, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout not empty on error: %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "broken.yaml") {
		t.Errorf("error does not name the file: %s", stderr.String())
	}
}

func TestParametersRejectsArgs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"parameters", "extra"}, strings.NewReader(""), &stdout, &stderr); code != supervisor.ExitUsage {
		t.Errorf("exit %d, want %d", code, supervisor.ExitUsage)
	}
}

// plugin.yaml's parameters.static must announce what `parameters` announces,
// without the operator list that only the sidecar knows.
func TestPluginYAMLStaticParametersMatch(t *testing.T) {
	data, err := os.ReadFile("../../plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Version    *string `json:"version"`
			Generate   struct{ Command, Args []string }
			Discover   map[string]any `json:"discover"`
			Parameters struct {
				Static  []cmpenv.Announcement `json:"static"`
				Dynamic struct{ Command, Args []string }
			} `json:"parameters"`
			PreserveFileMode bool `json:"preserveFileMode"`
			ProvideGitCreds  bool `json:"provideGitCreds"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		t.Fatalf("plugin.yaml: %v", err)
	}
	if cfg.Kind != "ConfigManagementPlugin" || cfg.Metadata.Name != "cmp-defaults" {
		t.Errorf("plugin.yaml: kind %q name %q", cfg.Kind, cfg.Metadata.Name)
	}
	if cfg.Spec.Version != nil {
		t.Errorf("plugin.yaml sets spec.version %q: Applications would have to name cmp-defaults-<version>", *cfg.Spec.Version)
	}
	if cfg.Spec.Discover != nil {
		t.Errorf("plugin.yaml has discover rules; discovery is off by default (docs/discovery.md)")
	}
	if got := append(cfg.Spec.Generate.Command, cfg.Spec.Generate.Args...); !reflect.DeepEqual(got, []string{"cmp-defaults", "generate"}) {
		t.Errorf("generate runs %q", got)
	}
	if got := append(cfg.Spec.Parameters.Dynamic.Command, cfg.Spec.Parameters.Dynamic.Args...); !reflect.DeepEqual(got, []string{"cmp-defaults", "parameters"}) {
		t.Errorf("parameters.dynamic runs %q", got)
	}
	want := cmpenv.Announce(nil)
	if !reflect.DeepEqual(cfg.Spec.Parameters.Static, want) {
		g, _ := json.MarshalIndent(cfg.Spec.Parameters.Static, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("plugin.yaml parameters.static differs from `cmp-defaults parameters`:\n--- plugin.yaml\n%s\n--- parameters\n%s", g, w)
	}
}

// generate (internal/cmpenv) reads exactly the announced parameters, each
// with the announced collection type.
func TestParametersMatchGenerate(t *testing.T) {
	var names []string
	for _, a := range cmpenv.Announce(nil) {
		names = append(names, a.Name)
		p := map[string]any{"name": a.Name}
		switch a.CollectionType {
		case "map":
			p["map"] = map[string]string{"external-secrets": "2.5.0"}
		case "array":
			p["array"] = []string{"values.yaml"}
		default:
			p["string"] = "false"
		}
		raw, err := json.Marshal([]any{p})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cmpenv.FromEnv([]string{"ARGOCD_APP_PARAMETERS=" + string(raw)}, t.TempDir(), cmpenv.Sidecar{Timeout: settings.DefaultTimeout}); err != nil {
			t.Errorf("generate rejects the announced parameter %s: %v", raw, err)
		}
	}
	if known := cmpenv.KnownParameters(); !reflect.DeepEqual(sorted(names), sorted(known)) {
		t.Errorf("announced %v, generate reads %v", sorted(names), sorted(known))
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}
