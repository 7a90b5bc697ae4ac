package cmpenv

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

func TestPrecedence(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "apps", "dd")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := fromEnv([]string{
		"CMP_DEFAULTS_OPERATORS=cert-manager@1.19.0",               // sidecar
		"ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0", // Application env wins
		"CMP_DEFAULTS_TIMEOUT=10s",
		"ARGOCD_APP_NAME=dd", "ARGOCD_APP_NAMESPACE=datadog", "ARGOCD_APP_SOURCE_PATH=apps/dd/",
		"KUBE_VERSION=1.30", "KUBE_API_VERSIONS=v1,apps/v1/Deployment",
		`ARGOCD_APP_PARAMETERS=[{"name":"set","map":{"b":"2","a":"1"}},{"name":"values-files","array":["v.yaml"]},{"name":"release-name","string":""}]`,
	}, app)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{Operators: []string{"external-secrets@2.5.0"}, Helm: settings.Helm{ValuesFiles: []string{"v.yaml"}, Set: []string{"a=1", "b=2"},
		ReleaseName: "dd", Namespace: "datadog", KubeVersion: "1.30", APIVersions: []string{"v1", "apps/v1/Deployment"}},
		Timeout: 10 * time.Second, AppDir: mustReal(t, app), RepoRoot: mustReal(t, root),
		From: map[*settings.Setting]string{
			settings.Operators:   "plugin env CMP_DEFAULTS_OPERATORS (the Application's spec.source.plugin.env)",
			settings.Timeout:     "env CMP_DEFAULTS_TIMEOUT (the cmp-defaults sidecar container)",
			settings.Set:         "parameter set",
			settings.ValuesFiles: "parameter values-files",
		}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
	c, err = fromEnv([]string{"ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=a@1.0.0", `ARGOCD_APP_PARAMETERS=[{"name":"operators","map":{"b":"2.0.0","c":""}}]`}, app)
	if err != nil || !reflect.DeepEqual(c.Operators, []string{"b@2.0.0"}) {
		t.Fatalf("parameters must win over env and skip empty entries: %v %v", c.Operators, err)
	}
	c, err = fromEnv([]string{"ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=a@1.0.0", `ARGOCD_APP_PARAMETERS=[{"name":"operators","map":{"b":"","c":" "}}]`}, app)
	if err != nil || !reflect.DeepEqual(c.Operators, []string{"a@1.0.0"}) {
		t.Fatalf("an operators map with only empty values sets nothing: %v %v", c.Operators, err)
	}
}

func TestRepoRootCannotBeWidened(t *testing.T) {
	app := filepath.Join(t.TempDir(), "repo", "apps", "x")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	real := mustReal(t, app)
	for sp, want := range map[string]string{
		"other/place":                            "does not match",
		"../../etc":                              "leaves the repository",
		"apps/../apps/x":                         "not a clean path",
		real:                                     "is absolute",
		strings.TrimPrefix(real, "/"):            "would make / the repository root",
		"repo/apps/x" + strings.Repeat("/a", 60): "more components",
	} {
		if _, err := fromEnv([]string{"ARGOCD_APP_SOURCE_PATH=" + sp}, app); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", sp, err, want)
		}
	}
	c, err := fromEnv([]string{"ARGOCD_APP_SOURCE_PATH=apps/x"}, app)
	if err != nil || c.RepoRoot != filepath.Dir(filepath.Dir(real)) {
		t.Fatalf("got %+v %v", c, err)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for env, want := range map[string]string{
		`ARGOCD_APP_PARAMETERS=[{"name":"x","string":"1"}]`:                    `unknown parameter "x"`,
		`ARGOCD_APP_PARAMETERS={}`:                                             "not a JSON array",
		`ARGOCD_APP_PARAMETERS=[{"name":"operators","string":"a@1"}]`:          `parameter "operators" must be a map, got a string`,
		`ARGOCD_APP_PARAMETERS=[{"name":"values-files","map":{"a":"1"}}]`:      `parameter "values-files" must be an array, got a map`,
		`ARGOCD_APP_PARAMETERS=[{"name":"allow-empty","string":"yes please"}]`: "want true or false",
		`ARGOCD_APP_PARAMETERS=[{"name":"values","bogus":1}]`:                  "not a JSON array",
		`ARGOCD_ENV_CMP_DEFAULTS_VALUEFILES=a.yaml`:                            "unknown plugin env CMP_DEFAULTS_VALUEFILES",
		`ARGOCD_ENV_CMP_DEFAULTS_STRICT=maybe`:                                 "want true or false",
		`CMP_DEFAULTS_TIMEOUT=-1s`:                                             "want a duration",
	} {
		if _, err := fromEnv([]string{env}, dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", env, err, want)
		}
	}
}

// The sidecar's timeout (the admin's) is the most an Application asks for.
func TestTenantTimeoutCapped(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		env  []string
		want time.Duration
		err  string
	}{
		{[]string{"ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=1000h"}, 0, "more than the 40s the sidecar allows"},
		{[]string{"CMP_DEFAULTS_TIMEOUT=10s", "ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=20s"}, 0, "more than the 10s the sidecar allows"},
		{[]string{"CMP_DEFAULTS_TIMEOUT=2m", "ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=90s"}, 90 * time.Second, ""},
		{[]string{"ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=5s"}, 5 * time.Second, ""},
		{[]string{"CMP_DEFAULTS_TIMEOUT=2m"}, 2 * time.Minute, ""},
	} {
		c, err := fromEnv(tc.env, dir)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: got %v, want %q", tc.env, err, tc.err)
		case tc.err == "" && (err != nil || c.Timeout != tc.want):
			t.Errorf("%v: got %v, %v; want %v", tc.env, c, err, tc.want)
		}
	}
}

func mustReal(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fromEnv is FromEnv with the sidecar settings of the same environment,
// as main reads them.
func fromEnv(environ []string, wd string) (*Config, error) {
	side, err := SidecarFromEnv(environ)
	if err != nil {
		return nil, err
	}
	return FromEnv(environ, wd, side)
}

// skip-schema-validation is a "true"/"false" parameter and plugin env, as
// allow-empty is; only true is a choice the messages name.
func TestSkipSchemaValidation(t *testing.T) {
	dir := t.TempDir()
	c, err := fromEnv([]string{`ARGOCD_APP_PARAMETERS=[{"name":"skip-schema-validation","string":"true"}]`}, dir)
	if err != nil || !c.SkipSchemaValidation || c.From[settings.SkipSchemaValidation] != "parameter skip-schema-validation" {
		t.Fatalf("parameter: %+v, %v", c, err)
	}
	c, err = fromEnv([]string{"ARGOCD_ENV_CMP_DEFAULTS_SKIP_SCHEMA_VALIDATION=true"}, dir)
	if err != nil || !c.SkipSchemaValidation {
		t.Fatalf("plugin env: %+v, %v", c, err)
	}
	c, err = fromEnv([]string{"ARGOCD_ENV_CMP_DEFAULTS_SKIP_SCHEMA_VALIDATION=true", `ARGOCD_APP_PARAMETERS=[{"name":"skip-schema-validation","string":"false"}]`}, dir)
	if err != nil || c.SkipSchemaValidation {
		t.Fatalf("the parameter wins over the plugin env: %+v, %v", c, err)
	}
	if _, err := fromEnv([]string{"ARGOCD_ENV_CMP_DEFAULTS_SKIP_SCHEMA_VALIDATION=maybe"}, dir); err == nil || !strings.Contains(err.Error(), "CMP_DEFAULTS_SKIP_SCHEMA_VALIDATION") {
		t.Fatalf("a bad value names the plugin env: %v", err)
	}
}
