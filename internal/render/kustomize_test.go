package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

func TestKustomizeOverlay(t *testing.T) {
	root := testRepo(t)
	objs := render(t, Options{Dir: filepath.Join(root, "kustomize", "overlays", "prod"), RepoRoot: root})
	var got []string
	for _, o := range objs {
		got = append(got, o.ID())
	}
	// kustomize's legacy order: ConfigMap, Service, Deployment, NetworkPolicy.
	want := []string{
		"v1 ConfigMap prod/prod-app-config-b4bfc8hc76",
		"v1 Service prod/prod-app",
		"apps/v1 Deployment prod/prod-app",
		"networking.k8s.io/v1 NetworkPolicy prod/prod-default-deny",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if i == 0 {
			continue // generated name hash checked below
		}
		if got[i] != want[i] {
			t.Errorf("object %d: got %q, want %q", i, got[i], want[i])
		}
	}
	cm := objs[0]
	if cm.Data["data"].(map[string]any)["MODE"] != "prod" {
		t.Errorf("configMapGenerator merge: %v", cm.Data["data"])
	}
	cmName := cm.Data["metadata"].(map[string]any)["name"].(string)
	d := find(t, objs, "Deployment", "prod-app")
	spec := d.Data["spec"].(map[string]any)
	if spec["replicas"] != int64(3) {
		t.Errorf("replicas = %#v, want 3 from the overlay patch", spec["replicas"])
	}
	ref := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["envFrom"].([]any)[0].(map[string]any)["configMapRef"].(map[string]any)["name"]
	if ref != cmName {
		t.Errorf("configMapRef %v, want generated name %v", ref, cmName)
	}
	if cm.Source != "kustomization.yaml" || cm.Doc != 1 || objs[3].Doc != 4 {
		t.Errorf("sources: %s, %s", cm.Where(), objs[3].Where())
	}
}

func TestKustomizeOutsideRoot(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	app := filepath.Join(repo, "app")
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"
	mkfile(t, filepath.Join(tmp, "outside.yaml"), fmt.Sprintf(cm, "outside"))
	mkfile(t, filepath.Join(tmp, "outside-base", "kustomization.yaml"), "resources: [cm.yaml]\n")
	mkfile(t, filepath.Join(tmp, "outside-base", "cm.yaml"), fmt.Sprintf(cm, "outside-base"))
	mkfile(t, filepath.Join(repo, "inside.yaml"), fmt.Sprintf(cm, "inside"))
	mkfile(t, filepath.Join(app, "cm.yaml"), fmt.Sprintf(cm, "local"))

	for _, tc := range []struct {
		name, kustomization string
		wants               []string
	}{
		{"file above root", "resources: [cm.yaml, ../../outside.yaml]\n", []string{"outside the repository root", `"../../outside.yaml"`}},
		{"base above root", "resources: [../../outside-base]\n", []string{"outside the repository root", "../../outside-base"}},
		{"patch above root", "resources: [cm.yaml]\npatches:\n  - path: ../../outside.yaml\n", []string{"outside the repository root", filepath.Join(tmp, "outside.yaml")}},
		{"generator file above root", "configMapGenerator:\n  - name: g\n    files: [../../outside.yaml]\n", []string{"outside the repository root", filepath.Join(tmp, "outside.yaml")}},
		{"absolute path", "resources: [" + filepath.Join(tmp, "outside.yaml") + "]\n", []string{"outside the repository root"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mkfile(t, filepath.Join(app, "kustomization.yaml"), tc.kustomization)
			err := renderErr(t, Options{Dir: app, RepoRoot: repo}, tc.wants...)
			if !errors.Is(err, ErrOutsideRoot) {
				t.Errorf("not ErrOutsideRoot: %v", err)
			}
		})
	}
	// Above the kustomization but inside the repository is fine.
	mkfile(t, filepath.Join(app, "kustomization.yaml"), "resources: [cm.yaml, ../inside.yaml]\n")
	if got := ids(render(t, Options{Dir: app, RepoRoot: repo})); !reflect.DeepEqual(got, []string{"ConfigMap inside", "ConfigMap local"}) {
		t.Errorf("got %v", got)
	}
}

func TestKustomizeSymlinkEscape(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	app := filepath.Join(repo, "app")
	mkfile(t, filepath.Join(tmp, "secret.yaml"), "apiVersion: v1\nkind: Secret\nmetadata:\n  name: stolen\n")
	mkfile(t, filepath.Join(tmp, "base", "kustomization.yaml"), "resources: [../secret.yaml]\n")
	mkfile(t, filepath.Join(app, "kustomization.yaml"), "resources: [linked.yaml]\n")
	must(t, os.Symlink("../../secret.yaml", filepath.Join(app, "linked.yaml")))
	err := renderErr(t, Options{Dir: app, RepoRoot: repo}, "linked.yaml", "outside the repository root", "symbolic link")
	if !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("not ErrOutsideRoot: %v", err)
	}
	// A linked directory leading out of the repository.
	must(t, os.Symlink("../../base", filepath.Join(app, "base")))
	mkfile(t, filepath.Join(app, "kustomization.yaml"), "resources: [base]\n")
	renderErr(t, Options{Dir: app, RepoRoot: repo}, "outside the repository root")
	// The kustomization file itself a link out.
	must(t, os.Remove(filepath.Join(app, "kustomization.yaml")))
	must(t, os.Symlink("../../base/kustomization.yaml", filepath.Join(app, "kustomization.yaml")))
	renderErr(t, Options{Dir: app, RepoRoot: repo}, "outside the repository root")
}

func TestKustomizeRemoteRefused(t *testing.T) {
	root := testRepo(t)
	err := renderErr(t, Options{Dir: filepath.Join(root, "kustomize", "remote"), RepoRoot: root},
		"github.com/kubernetes-sigs/kustomize/examples/multibases?ref=v1.0.6", "remote", "vendor it into the repository")
	if !errors.Is(err, ErrRemote) {
		t.Errorf("not ErrRemote: %v", err)
	}

	tmp := t.TempDir()
	for _, k := range []string{
		"resources: [https://raw.githubusercontent.com/x/y/main/cm.yaml]\n",
		"resources: [git@github.com:org/repo.git//base]\n",
		"patches:\n  - path: https://example.com/patch.yaml\n",
		"components: [gitlab.example.com/org/repo/component]\n",
	} {
		mkfile(t, filepath.Join(tmp, "kustomization.yaml"), k)
		err := renderErr(t, Options{Dir: tmp, RepoRoot: tmp}, "remote source not supported")
		if !errors.Is(err, ErrRemote) {
			t.Errorf("%q: not ErrRemote: %v", k, err)
		}
	}
}

func TestKustomizeBuildError(t *testing.T) {
	tmp := t.TempDir()
	mkfile(t, filepath.Join(tmp, "kustomization.yaml"), "resources: [missing.yaml]\n")
	renderErr(t, Options{Dir: tmp, RepoRoot: tmp}, "kustomize build failed", "missing.yaml")
	mkfile(t, filepath.Join(tmp, "kustomization.yaml"), "resources: [\n")
	renderErr(t, Options{Dir: tmp, RepoRoot: tmp}, "kustomization.yaml", "malformed YAML")
}

// fakeTools puts git and ssh on PATH that leave a marker when run.
func fakeTools(t *testing.T) (marker string) {
	bin := t.TempDir()
	marker = filepath.Join(t.TempDir(), "ran")
	for _, tool := range []string{"git", "ssh"} {
		script := "#!/bin/sh\necho " + tool + " \"$@\" >> " + marker + "\n"
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv("TMPDIR", t.TempDir())
	return marker
}

// Even past the preflight, krusty cannot run git or ssh in the worker's
// environment (internal/supervisor.WorkerEnv: no PATH), so a remote shape
// the preflight does not know is refused too. The same build with the
// caller's PATH runs git: the environment is what stops it.
func TestKrustyCannotFetch(t *testing.T) {
	targets := []string{"github.com/evil/repo", "alice@127.0.0.1:repo.git", "ssh://127.0.0.1/repo.git", "https://127.0.0.1:1/org/repo.git"}
	if os.Getenv("KRUSTY_TEST_CHILD") != "" {
		for _, target := range targets {
			for _, key := range []string{"resources", "components", "generators", "transformers"} {
				dir := t.TempDir()
				if target == "github.com/evil/repo" {
					// A local directory of that shape does not make it local to kustomize.
					write(t, dir, "github.com/evil/repo/kustomization.yaml", "resources: []\n")
				}
				write(t, dir, "kustomization.yaml", key+":\n- "+target+"\n")
				root, _ := filepath.EvalSymlinks(dir)
				if _, err := runKrusty(&rootFS{root: root, disk: filesys.MakeFsOnDisk()}, root); err == nil {
					t.Errorf("%s %s: krusty succeeded", key, target)
				}
			}
		}
		return
	}
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	for _, tool := range []string{"git", "ssh"} {
		script := "#!/bin/sh\necho " + tool + " \"$@\" >> " + marker + "\n"
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	child := func(env []string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKrustyCannotFetch$")
		cmd.Env = append(append([]string{}, env...), "KRUSTY_TEST_CHILD=1", "TMPDIR="+tmp)
		cmd.Dir = bin // a git in the working directory is not found either
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("krusty in %v: %v\n%s", env, err, out)
		}
		b, _ := os.ReadFile(marker)
		os.Remove(marker)
		return string(b)
	}
	if ran := child(supervisor.WorkerEnv); ran != "" {
		t.Errorf("a program ran in the worker's environment: %s", ran)
	}
	if ran := child([]string{"PATH=" + bin}); ran == "" {
		t.Error("with git on PATH, krusty did not run it: this test cannot see a fetch")
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "kustomize-*")); len(left) > 0 {
		t.Logf("clone directories of the PATH run: %v", left)
	}
}

func write(t *testing.T, dir, name, content string) {
	mkfile(t, filepath.Join(dir, name), content)
}

// The preflight refuses every remote shape before krusty sees it, in every
// key that names a path, in nested kustomizations too.
func TestKustomizePreflightRefusesRemote(t *testing.T) {
	marker := fakeTools(t)
	for _, tc := range []struct{ kust, extra string }{
		{"generators:\n- github.com/evil/repo\n", ""},
		{"resources:\n- alice@127.0.0.1:repo.git\n", ""},
		{"resources:\n- github.com/x/y\n", "github.com/x/y/kustomization.yaml"},
		{"resources:\n- GitHub.com/x/y\n", ""},
		{"components:\n- https://example.com/c\n", ""},
		{"transformers:\n- git::https://example.com/t\n", ""},
		{"validators:\n- gh:org/repo\n", ""},
		{"bases:\n- example.com:org/repo\n", ""},
		{"resources:\n- base?ref=v1\n", ""},
		{"patches:\n- path: https://example.com/p.yaml\n", ""},
		{"resources:\n- sub\n", "sub/kustomization.yaml"}, // nested: sub's own remote resource
	} {
		dir := t.TempDir()
		write(t, dir, "kustomization.yaml", tc.kust)
		if tc.extra != "" {
			content := "resources: []\n"
			if tc.extra == "sub/kustomization.yaml" {
				content = "resources:\n- alice@127.0.0.1:repo.git\n"
			}
			write(t, dir, tc.extra, content)
		}
		_, err := Render(context.Background(), Options{Dir: dir})
		if !errors.Is(err, ErrRemote) {
			t.Errorf("%q: got %v, want ErrRemote", tc.kust, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a program ran")
	}
}
