package render

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// A kustomization's helmCharts entry whose chart is a directory of the
// repository (chartHome) renders in-process, as kustomize's Helm support
// renders it with the helm binary: release name, values file and inline
// values, no CRDs without includeCRDs, no tests with skipTests, and the
// kustomization's namespace left to Helm, as kustomize does.
func TestKustomizeHelmCharts(t *testing.T) {
	repo := t.TempDir()
	chart := filepath.Join(repo, "charts", "web")
	mkfile(t, filepath.Join(chart, "Chart.yaml"), "apiVersion: v2\nname: web\nversion: 0.1.0\n")
	mkfile(t, filepath.Join(chart, "values.yaml"), "name: x\nreplicas: 1\n")
	mkfile(t, filepath.Join(chart, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}-{{ .Values.name }}'}\ndata: {replicas: '{{ .Values.replicas }}'}\n")
	mkfile(t, filepath.Join(chart, "templates", "test.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: t, annotations: {helm.sh/hook: test}}\nspec: {containers: [{name: t, image: busybox}]}\n")
	mkfile(t, filepath.Join(chart, "crds", "crd.yaml"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n")
	overlay := filepath.Join(repo, "overlay")
	mkfile(t, filepath.Join(overlay, "kustomization.yaml"), `namespace: team
helmGlobals: {chartHome: ../charts}
helmCharts:
  - name: web
    releaseName: rel
    valuesFile: values-prod.yaml
    valuesInline: {replicas: 2}
    skipTests: true
resources: [plain.yaml]
`)
	mkfile(t, filepath.Join(overlay, "values-prod.yaml"), "name: prod\n")
	mkfile(t, filepath.Join(overlay, "plain.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n")

	objs := render(t, Options{Dir: overlay, RepoRoot: repo})
	if got, want := ids(objs), []string{"ConfigMap plain", "ConfigMap rel-prod"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("objects %q, want %q", got, want)
	}
	// kustomize's namespace leaves what helm made alone (helm's namespace
	// is the entry's), and its mark on them is not printed.
	cm := objs[1].Data
	if md := cm["metadata"].(map[string]any); md["namespace"] != nil || md["annotations"] != nil {
		t.Errorf("metadata %v, want no namespace and no annotations", md)
	}
	if md := objs[0].Data["metadata"].(map[string]any); md["namespace"] != "team" {
		t.Errorf("plain.yaml's namespace %v, want team", md["namespace"])
	}
	if d := cm["data"].(map[string]any); d["replicas"] != "2" {
		t.Errorf("replicas %v, want 2 (valuesInline over the values file)", d["replicas"])
	}

	// includeCRDs and no skipTests: the CRD and the test hook come too.
	mkfile(t, filepath.Join(overlay, "kustomization.yaml"), "helmGlobals: {chartHome: ../charts}\nhelmCharts:\n  - {name: web, releaseName: release-name, includeCRDs: true}\n")
	if got, want := ids(render(t, Options{Dir: overlay, RepoRoot: repo})), []string{"CustomResourceDefinition widgets.example.com", "ConfigMap release-name-x", "Pod t"}; !reflect.DeepEqual(got, want) {
		t.Errorf("objects %q, want %q", got, want)
	}

	// The render's Kubernetes version wins over the entry's, as
	// kustomize's --helm-kube-version (which Argo CD passes) does.
	mkfile(t, filepath.Join(chart, "templates", "kv.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 'kube-{{ .Capabilities.KubeVersion.Minor }}'}\n")
	mkfile(t, filepath.Join(overlay, "kustomization.yaml"), "helmGlobals: {chartHome: ../charts}\nhelmCharts:\n  - {name: web, releaseName: r, kubeVersion: 1.30.0}\n")
	if got := ids(render(t, Options{Dir: overlay, RepoRoot: repo})); !slices.Contains(got, "ConfigMap kube-30") {
		t.Errorf("objects %q, want ConfigMap kube-30 (the entry's kubeVersion)", got)
	}
	if got := ids(render(t, Options{Dir: overlay, RepoRoot: repo, Helm: settings.Helm{KubeVersion: "1.33.0"}})); !slices.Contains(got, "ConfigMap kube-33") {
		t.Errorf("objects %q, want ConfigMap kube-33 (the render's kube version)", got)
	}

	// A chart outside the repository root is refused, and so is an entry
	// without a release name (helm would make up a new one every build).
	renderErr(t, Options{Dir: overlay, RepoRoot: overlay}, "helmCharts[0]", "outside the repository root")
	mkfile(t, filepath.Join(overlay, "kustomization.yaml"), "helmGlobals: {chartHome: ../charts}\nhelmCharts:\n  - {name: web}\n")
	renderErr(t, Options{Dir: overlay, RepoRoot: repo}, "helmCharts[0]", "no releaseName", "set releaseName")
}

// A chart that is not in the repository would be pulled: refused as
// remote, naming the repository kustomize would pull it from.
func TestKustomizeRemoteHelmChartRefused(t *testing.T) {
	root := testRepo(t)
	err := renderErr(t, Options{Dir: filepath.Join(root, "kustomize", "helm"), RepoRoot: root},
		`helmCharts[0] (chart "redis")`, "would be pulled from https://charts.bitnami.com/bitnami", "vendor the chart")
	if !errors.Is(err, ErrRemote) {
		t.Errorf("not ErrRemote: %v", err)
	}
}
