package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/types"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
)

// Image overrides read as 'kustomize edit set image' reads them.
func TestKustomizeImage(t *testing.T) {
	for in, want := range map[string]types.Image{
		"nginx:1.27":                         {Name: "nginx", NewTag: "1.27"},
		"nginx=registry.example.com/nginx:2": {Name: "nginx", NewName: "registry.example.com/nginx", NewTag: "2"},
		"registry:5000/app:v1":               {Name: "registry:5000/app", NewTag: "v1"},
		"app=app@sha256:abc":                 {Name: "app", NewName: "app", Digest: "sha256:abc"},
		"app":                                {Name: "app"},
	} {
		if got := kustomizeImage(in); got != want {
			t.Errorf("%q: got %+v, want %+v", in, got, want)
		}
	}
}

// An image override names Argo CD's build environment ($ARGOCD_APP_*) as
// the repo-server substitutes it.
func TestKustomizeOverlayEnvsubst(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := &argocd.Source{App: "api", Field: "spec.source", KustomizeSpec: map[string]any{"images": []any{"app=registry.example.com/app:${ARGOCD_APP_REVISION_SHORT}-$ARGOCD_APP_NAME$UNSET"}}}
	out, err := kustomizeOverlay(root, dir, src, src.BuildEnv("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "newTag: 0123456-api\n") {
		t.Errorf("the image's tag is not substituted:\n%s", b)
	}
}
