package action

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// sidecar is the sidecar configuration of environ, as main reads it.
func sidecar(t *testing.T, environ []string) cmpenv.Sidecar {
	t.Helper()
	s, err := cmpenv.SidecarFromEnv(environ)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func absDir(t *testing.T, parts ...string) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join(parts...))
	if err != nil {
		t.Fatal(err)
	}
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// generate's job is resolved from the CMP environment alone: each setting
// from its source, named by it, and the pipeline turns it into the filled
// objects.
func TestGenerateJob(t *testing.T) {
	environ := []string{
		"ARGOCD_APP_NAME=shop", "ARGOCD_APP_NAMESPACE=datadog", "ARGOCD_APP_SOURCE_PATH=examples/plain",
		`ARGOCD_APP_PARAMETERS=[{"name":"operators","map":{"external-secrets":"2.5.0"}}]`,
		"ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=7s", "CMP_DEFAULTS_TIMEOUT=9s", "CMP_DEFAULTS_INCLUDE=*.yaml",
		"CMP_DEFAULTS_MAX_INPUT_BYTES=100000", "KUBE_API_VERSIONS=v1",
	}
	side := sidecar(t, environ)
	wd := absDir(t, "..", "..", "examples", "plain")
	j, warnings, err := GenerateJob(environ, wd, side)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("GenerateJob: %v, warnings %q", err, warnings)
	}
	if j.Source.Dir != wd || j.Source.RepoRoot != absDir(t, "..", "..") || j.Source.ReleaseName != "shop" || j.Source.Namespace != "datadog" || j.Source.Include != "*.yaml" {
		t.Errorf("source %+v", j.Source)
	}
	if j.Source.MaxBytes != 100000 || j.Timeout != 7*time.Second || !j.CMP || j.AllowEmpty || j.Format != manifest.JSONStream {
		t.Errorf("input limit %d, timeout %s, CMP %v, allow-empty %v, format %q", j.Source.MaxBytes, j.Timeout, j.CMP, j.AllowEmpty, j.Format)
	}
	if got := strings.Join(j.Selection.Refs, ","); got != "external-secrets@2.5.0" {
		t.Errorf("selection %q", got)
	}
	// Each setting knows where it came from, so that errors name it; the
	// sidecar's are an administrator's defaults, not the Application's.
	if !j.Names.CMP || j.Names.Of(settings.Operators) != "parameter operators" || !strings.HasPrefix(j.TimeoutName(), "plugin env CMP_DEFAULTS_TIMEOUT") {
		t.Errorf("names: operators %q, timeout %q", j.Names.Of(settings.Operators), j.TimeoutName())
	}
	if len(j.Defaults) != 1 || j.Defaults[0] != settings.Include {
		t.Errorf("sidecar defaults %v, want include", j.Defaults)
	}
	env := &Env{Sidecar: side}
	res, err := env.runJob(t.Context(), j)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Objects) != 2 {
		t.Fatalf("%d objects, want 2", len(res.Objects))
	}
	out := string(res.Output)
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, `"nullBytePolicy":"Ignore"`) || !strings.Contains(out, `"deletionPolicy":"Retain"`) {
		t.Errorf("output is not the filled JSON stream:\n%s", out)
	}
	if ws := env.Warnings.Lines(); len(ws) != 1 || !strings.Contains(ws[0], "KUBE_API_VERSIONS") {
		t.Errorf("warnings %q, want the one about KUBE_API_VERSIONS", env.Warnings.Lines())
	}

	// Mistakes are configuration errors that name the setting.
	for _, tc := range []struct {
		environ []string
		says    string
	}{
		{nil, "no operator release configured"},
		{[]string{"ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0", "ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=1h"}, "more than the 40s the sidecar allows"},
		{[]string{"ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0", "ARGOCD_APP_SOURCE_PATH=/abs"}, "is absolute"},
	} {
		_, _, err := GenerateJob(tc.environ, wd, sidecar(t, tc.environ))
		var ce ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %v, want a ConfigError saying %q", tc.environ, err, tc.says)
		}
	}
}

// An Application that allows an empty result gets one from generate, and
// audit, which renders the Application as generate does, agrees: its
// rules are classified against no objects instead of failing.
func TestEmptySourceAllowed(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(t.TempDir(), "app.yaml")
	if err := os.WriteFile(app, []byte(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: empty}
spec:
  ignoreDifferences:
  - {group: external-secrets.io, kind: ExternalSecret, jsonPointers: [/spec/target/deletionPolicy]}
  source:
    plugin:
      name: cmp-defaults
      parameters:
      - {name: operators, map: {external-secrets: "2.5.0"}}
      - {name: allow-empty, string: "true"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := []string{`ARGOCD_APP_PARAMETERS=[{"name":"operators","map":{"external-secrets":"2.5.0"}},{"name":"allow-empty","string":"true"}]`}
	res, err := (&Generate{Environ: environ, WorkDir: absDir(t, dir)}).Run(t.Context(), newEnv(t))
	if err != nil || len(res.Output) != 0 {
		t.Fatalf("generate: %v, output %+v", err, res)
	}
	a := &Audit{Apps: []string{app}, Rendering: Rendering{RepoRoot: dir}}
	res, err = a.Run(t.Context(), newEnv(t))
	if err != nil {
		t.Fatalf("audit of the same Application: %v", err)
	}
	var b strings.Builder
	if err := res.Report.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, `"objects": 0,`) || !strings.Contains(out, `"status": "matches-nothing"`) {
		t.Errorf("the rule should match nothing:\n%s", out)
	}
}
