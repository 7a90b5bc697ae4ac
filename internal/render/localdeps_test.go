package render

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// A dependency from a local directory of the repository (file://) renders
// as after `helm dependency build`, offline: its templates with its values
// under the parent's, nested file:// dependencies too. Version constraints
// hold, and a directory outside the repository root is refused.
func TestHelmLocalDependencies(t *testing.T) {
	repo := t.TempDir()
	app := filepath.Join(repo, "charts", "app")
	mkfile(t, filepath.Join(app, "Chart.yaml"), `apiVersion: v2
name: app
version: 1.0.0
dependencies:
  - {name: lib, version: "~0.1.0", repository: "file://../lib"}
  - {name: vendored, version: 0.1.0, repository: "file://../missing"}
`)
	mkfile(t, filepath.Join(app, "values.yaml"), "lib: {size: 3}\n")
	mkfile(t, filepath.Join(app, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n")
	writeChart(t, filepath.Join(app, "charts", "vendored"), "vendored", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vendored}\n")
	lib := filepath.Join(repo, "charts", "lib")
	mkfile(t, filepath.Join(lib, "Chart.yaml"), `apiVersion: v2
name: lib
version: 0.1.3
dependencies:
  - {name: base, repository: "file://../../base"}
`)
	mkfile(t, filepath.Join(lib, "values.yaml"), "size: 1\n")
	mkfile(t, filepath.Join(lib, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lib-{{ .Values.size }}}\n")
	writeChart(t, filepath.Join(repo, "base"), "base", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: base}\n")

	objs := render(t, Options{Dir: app, RepoRoot: repo, Helm: settings.Helm{ReleaseName: "r"}})
	if got, want := ids(objs), []string{"ConfigMap base", "ConfigMap lib-3", "ConfigMap vendored", "ConfigMap app"}; !reflect.DeepEqual(got, want) {
		t.Errorf("objects %q, want %q", got, want)
	}

	// The version Chart.yaml asks for must be the local chart's.
	mkfile(t, filepath.Join(lib, "Chart.yaml"), "apiVersion: v2\nname: lib\nversion: 0.2.0\n")
	renderErr(t, Options{Dir: app, RepoRoot: repo, Helm: settings.Helm{ReleaseName: "r"}}, "dependency lib (repository file://../lib) of chart charts/app", `version 0.2.0, which does not satisfy "~0.1.0"`)

	// Nothing outside the repository root is read.
	renderErr(t, Options{Dir: app, RepoRoot: filepath.Join(repo, "charts", "app"), Helm: settings.Helm{ReleaseName: "r"}}, "dependency lib", "outside the repository root")

	// Remote dependencies are still refused.
	mkfile(t, filepath.Join(app, "Chart.yaml"), "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - {name: redis, version: 19.0.0, repository: https://charts.example.com}\n")
	err := renderErr(t, Options{Dir: app, RepoRoot: repo, Helm: settings.Helm{ReleaseName: "r"}}, "redis", "helm dependency build")
	if !errors.Is(err, ErrMissingDependency) {
		t.Errorf("not ErrMissingDependency: %v", err)
	}
}
