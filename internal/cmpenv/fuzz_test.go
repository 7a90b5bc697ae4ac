package cmpenv

import (
	"strings"
	"testing"
)

// FuzzFromEnv: the CMP environment parser never panics, and an accepted
// configuration never points outside the app directory's repository.
func FuzzFromEnv(f *testing.F) {
	f.Add(`[{"name":"operators","map":{"external-secrets":"2.5.0"}},{"name":"values-files","array":["a.yaml"]}]`, "external-secrets@2.5.0,cert-manager@1.19.1", "apps/x", "40s")
	f.Add(`[{"name":"allow-empty","string":"true"},{"name":"set","map":{"a.b":"1"}}]`, "", "", "")
	f.Add(`[]`, ",,", "../..", "1ns")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, params, operators, sourcePath, timeout string) {
		env := []string{"ARGOCD_APP_PARAMETERS=" + params, "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=" + operators,
			"ARGOCD_APP_SOURCE_PATH=" + sourcePath, "ARGOCD_ENV_CMP_DEFAULTS_TIMEOUT=" + timeout}
		c, err := fromEnv(env, dir)
		if err != nil {
			return
		}
		if !strings.HasPrefix(c.AppDir, c.RepoRoot) {
			t.Fatalf("app dir %s is not under repo root %s", c.AppDir, c.RepoRoot)
		}
		if c.Timeout <= 0 {
			t.Fatalf("timeout %v", c.Timeout)
		}
	})
}
