package render

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/benchdata"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

func benchRender(b *testing.B, opt Options) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := Render(ctx, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderHelm(b *testing.B) {
	root, _ := filepath.Abs("testdata/repo")
	benchRender(b, Options{Dir: filepath.Join(root, "charts", "app"), RepoRoot: root, Helm: settings.Helm{ReleaseName: "rel", Namespace: "team", KubeVersion: "1.34.0"}})
}

func BenchmarkRenderKustomize(b *testing.B) {
	root, _ := filepath.Abs("testdata/repo")
	benchRender(b, Options{Dir: filepath.Join(root, "kustomize", "overlays", "prod"), RepoRoot: root})
}

func BenchmarkRenderDirectory(b *testing.B) {
	root, _ := filepath.Abs("testdata/repo")
	benchRender(b, Options{Dir: filepath.Join(root, "plain"), RepoRoot: root})
}

// BenchmarkHelmTemplateCLI is the reference for BenchmarkRenderHelm: the Helm 4
// CLI rendering the same chart (process start included, as Argo CD pays it).
func BenchmarkHelmTemplateCLI(b *testing.B) {
	bin := os.Getenv("HELM_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../../bin/helm")
	}
	if _, err := os.Stat(bin); err != nil {
		b.Skip("no helm binary; run scripts/install-helm.sh")
	}
	root, _ := filepath.Abs("testdata/repo")
	home := b.TempDir()
	for b.Loop() {
		cmd := exec.Command(bin, "template", "rel", filepath.Join(root, "charts", "app"), "--include-crds",
			"--namespace", "team", "--kube-version", "1.34.0")
		cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG="+filepath.Join(home, "none"))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}

// BenchmarkRenderHelm50 renders the benchmark chart: 50 templates.
func BenchmarkRenderHelm50(b *testing.B) {
	dir := b.TempDir()
	if err := benchdata.Chart(dir, 50); err != nil {
		b.Fatal(err)
	}
	benchRender(b, Options{Dir: dir, RepoRoot: dir, Helm: settings.Helm{ReleaseName: "bench", Namespace: "team", KubeVersion: "1.34.0"}})
}

// BenchmarkRenderKustomize200 builds an overlay of 200 resources.
func BenchmarkRenderKustomize200(b *testing.B) {
	dir := b.TempDir()
	if err := benchdata.Kustomize(dir, 200); err != nil {
		b.Fatal(err)
	}
	benchRender(b, Options{Dir: filepath.Join(dir, "overlay"), RepoRoot: dir})
}

// BenchmarkRenderKustomize200Origins is the same build with kustomize's
// origin tracking (explain, the CLI's inputs, locating an error): compare
// with BenchmarkRenderKustomize200 in the same run.
func BenchmarkRenderKustomize200Origins(b *testing.B) {
	dir := b.TempDir()
	if err := benchdata.Kustomize(dir, 200); err != nil {
		b.Fatal(err)
	}
	benchRender(b, Options{Dir: filepath.Join(dir, "overlay"), RepoRoot: dir, Origins: true})
}
