package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoapiclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v3/util/tls"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
)

// Parity of preview with Argo CD: for every Application of preview's test
// repository, at both revisions, the manifests 'preview --output-dir'
// writes equal what Argo CD v3.6.1's repo-server generates for it (through
// the CMP server and cmp-defaults for a plugin source). Directory, plugin,
// Kustomize and Helm sources, the last two with programs built here from
// the module proxy: helm 4.3.1, the one Argo CD v3.6.1 ships, and
// kustomize 5.8.2 (it ships 5.8.3, one of whose dependencies the proxy
// does not serve).
func TestPreviewParity(t *testing.T) {
	installKustomize(t)
	installHelm(t)
	src := filepath.Join(repoRoot(), "internal", "action", "testdata", "preview")
	r, err := newGitRepo(filepath.Join(tmpRoot, "preview-git"))
	if err != nil {
		t.Fatal(err)
	}
	base := r.commit(t, "base", copyTree(t, filepath.Join(src, "base"), nil))
	head := copyTree(t, filepath.Join(src, "head"), nil)
	for _, f := range strings.Fields(head["removed.txt"]) {
		head[f] = ""
	}
	delete(head, "removed.txt")
	revs := map[string]string{"base": base, "head": r.commit(t, "head", head)}

	// A cluster's version as a managed cluster reports it (a vendor's
	// suffix, which the repo-server leaves out) and API versions, given to
	// preview and to every request: the charts' templates read them (one is
	// gated on CloudNativePG's Cluster).
	kubeVersion, apiVersions := "v1.37.0-eks-4b2c1a7", []string{"postgresql.cnpg.io/v1", "postgresql.cnpg.io/v1/Cluster"}
	out := t.TempDir()
	cmd := exec.Command(binary, "preview", "--base", revs["base"], "--head", revs["head"],
		"--repo-url", "https://github.com/example/gitops.git", "--output-dir", out,
		"--kube-version", kubeVersion, "--api-versions", strings.Join(apiVersions, ","))
	cmd.Dir = r.dir
	if msg, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("preview: %v\n%s", err, msg)
	}
	rs := repoapiclient.NewRepoServerClientset(argo.repoAddr, 60, tls.Configuration{DisableTLS: true})
	closer, client, err := rs.NewRepoServerClient()
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()

	compared := 0
	for side, rev := range revs {
		files, err := r.git("ls-tree", "-r", "--name-only", rev)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range strings.Fields(files) {
			if !strings.HasSuffix(f, ".yaml") {
				continue
			}
			text, err := r.git("show", rev+":"+f)
			if err != nil {
				t.Fatal(err)
			}
			var app v1alpha1.Application
			if !strings.Contains(text, "kind: Application\n") || yaml.Unmarshal([]byte(text), &app) != nil || app.Kind != "Application" {
				continue
			}
			// Each source as the controller asks for it: the refs of this
			// repository at the same revision, and a ref-only source too.
			refs := map[string]*v1alpha1.RefTarget{}
			sources := app.Spec.GetSources()
			for _, s := range sources {
				if s.Ref != "" {
					refs["$"+s.Ref] = &v1alpha1.RefTarget{Repo: v1alpha1.Repository{Repo: r.url}, TargetRevision: rev}
				}
			}
			var argoObjs []map[string]any
			for _, source := range sources {
				source.RepoURL, source.TargetRevision = r.url, rev
				res, err := client.GenerateManifest(context.Background(), &repoapiclient.ManifestRequest{
					Repo: &v1alpha1.Repository{Repo: r.url}, Revision: rev, ApplicationSource: &source,
					AppName: app.Name, Namespace: app.Spec.Destination.Namespace, NoCache: true,
					KubeVersion: kubeVersion, ApiVersions: apiVersions,
					HasMultipleSources: app.Spec.HasMultipleSources(), RefSources: refs,
					ProjectName: "default", ProjectSourceRepos: []string{"*"},
				})
				if err != nil {
					t.Errorf("%s %s: repo-server: %v", side, app.Name, err)
					continue
				}
				for _, m := range res.Manifests {
					var o map[string]any
					if err := json.Unmarshal([]byte(m), &o); err != nil {
						t.Fatal(err)
					}
					argoObjs = append(argoObjs, redacted(o))
				}
			}
			ours := readStream(t, filepath.Join(out, side, "argocd_"+app.Name+".yaml"))
			if d := sameObjects(argoObjs, ours); d != "" {
				t.Errorf("%s %s: preview's manifests differ from the repo-server's: %s", side, app.Name, d)
			}
			compared++
		}
	}
	if compared != 18 {
		t.Errorf("compared %d Applications' manifests, want the test repository's 18 (9 per revision)", compared)
	}
}

// installKustomize puts a kustomize program on the PATH the repo-server
// runs it from, built from the Go module proxy.
func installKustomize(t *testing.T) {
	goInstall(t, "kustomize-bin", "sigs.k8s.io/kustomize/kustomize/v5@v5.8.2")
}

// installHelm puts the helm program Argo CD v3.6.1 ships (4.3.1) on the
// PATH the repo-server runs it from, built from the Go module proxy.
func installHelm(t *testing.T) {
	goInstall(t, "helm-bin", "helm.sh/helm/v4/cmd/helm@v4.3.1")
}

// goInstall builds a program with this suite's toolchain (Go 1.27), in its
// own module graph: as released, not with the Kubernetes and other versions
// Argo CD pins here. It puts the program's directory first on the PATH.
func goInstall(t *testing.T, dir, pkg string) {
	t.Helper()
	bin := filepath.Join(tmpRoot, dir)
	goEnv := append(os.Environ(), "GOMODCACHE="+modCache, "GOCACHE="+goCache, "GOBIN="+bin, "GOFLAGS=")
	goCmd, err := e2ekit.LookPath("go", goEnv)
	if err != nil {
		t.Fatal(err)
	}
	install := exec.Command(goCmd, "install", pkg)
	install.Dir, install.Env = tmpRoot, goEnv
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", pkg, err, out)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// redacted is o with a Secret's values replaced as preview writes them.
func redacted(o map[string]any) map[string]any {
	if o["apiVersion"] != "v1" || o["kind"] != "Secret" {
		return o
	}
	for _, f := range []string{"data", "stringData"} {
		if m, ok := o[f].(map[string]any); ok {
			for k := range m {
				m[k] = "<redacted>"
			}
		}
	}
	return o
}

func readStream(t *testing.T, file string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []map[string]any
	for {
		var o map[string]any
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
}

// sameObjects says how two sets of objects differ, "" when they do not.
func sameObjects(a, b []map[string]any) string {
	key := func(o map[string]any) string {
		md, _ := o["metadata"].(map[string]any)
		return fmt.Sprintf("%v %v %v/%v", o["apiVersion"], o["kind"], md["namespace"], md["name"])
	}
	sorted := func(objs []map[string]any) []map[string]any {
		out := append([]map[string]any(nil), objs...)
		sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
		return out
	}
	a, b = sorted(a), sorted(b)
	if len(a) != len(b) {
		var ka, kb []string
		for _, o := range a {
			ka = append(ka, key(o))
		}
		for _, o := range b {
			kb = append(kb, key(o))
		}
		return fmt.Sprintf("repo-server %q, preview %q", ka, kb)
	}
	for i := range a {
		// Both sides decoded from JSON or YAML: compare as JSON values.
		ja, _ := json.Marshal(a[i])
		jb, _ := json.Marshal(b[i])
		var x, y any
		_ = json.Unmarshal(ja, &x)
		_ = json.Unmarshal(jb, &y)
		if !equality.Semantic.DeepEqual(x, y) {
			return fmt.Sprintf("%s:\nrepo-server %s\npreview     %s", key(a[i]), ja, jb)
		}
	}
	return ""
}
