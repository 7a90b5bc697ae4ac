package action

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// An Application's inputs key changes with every file its render reads
// (its directory, a values file of another source, a file:// dependency),
// and there is none where the files cannot be named without rendering.
func TestInputsKey(t *testing.T) {
	tree := func() string {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "preview", "base"))); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	keys := func(root string) map[string]string {
		t.Helper()
		env := newEnv(t)
		var objs []manifest.Object
		for _, f := range []string{"web", "multi", "kustomize", "team", "eso"} {
			got, err := env.reader(nil).All([]string{filepath.Join(root, "apps", f+".yaml")})
			if err != nil {
				t.Fatal(err)
			}
			objs = append(objs, got...)
		}
		found, err := argocd.Extract(objs)
		if err != nil {
			t.Fatal(err)
		}
		a := &Audit{Rendering: Rendering{RepoRoot: root}, RepoURL: "https://github.com/example/gitops.git", asArgoCD: true}
		out := map[string]string{}
		for _, app := range found.Applications {
			if k, ok := a.inputsKey(env, root, app); ok {
				out[app.Origin.Name] = k
			}
		}
		return out
	}
	base := keys(tree())
	if _, ok := base["kustomize"]; ok {
		t.Error("a Kustomize source has an inputs key: its kustomization may read any file")
	}
	for _, name := range []string{"web", "multi", "team", "secrets"} {
		if base[name] == "" {
			t.Errorf("%s has no inputs key", name)
		}
	}
	if same := keys(tree()); !maps.Equal(same, base) {
		t.Errorf("the same files give other keys: %v, %v", same, base)
	}
	for _, c := range []struct {
		file, changes string
		apps          []string
	}{
		{"charts/common/templates/configmap.yaml", "a file:// dependency", []string{"web", "multi"}},
		{"values/shop-web.yaml", "a $values file of the ref source", []string{"multi"}},
		{"team/new.yaml", "a new file of a directory source", []string{"team"}},
	} {
		root := tree()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, c.file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, c.file), []byte("# changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		got := keys(root)
		for name, k := range base {
			changed := got[name] != k
			want := false
			for _, a := range c.apps {
				want = want || a == name
			}
			if changed != want {
				t.Errorf("%s changed: %s's key changed %v, want %v", c.file, name, changed, want)
			}
		}
	}
	root := tree()
	if err := os.Symlink("plain.yaml", filepath.Join(root, "team", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if k := keys(root); k["team"] != "" {
		t.Error("a directory holding a symbolic link has an inputs key: the link may lead anywhere in the repository")
	}
}
