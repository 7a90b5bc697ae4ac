package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
)

// cmp-defaults preview, as a user runs it, with this program beside it: a
// pull request adds a directory that a Git directories generator turns into
// a new Application, and changes another generated Application's files.
func TestPreviewGeneratesApplicationSets(t *testing.T) {
	bin := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmpDefaults, err := e2ekit.CMPDefaultsBinary(bin, root, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	appset := filepath.Join(bin, "cmp-defaults-appset")
	if out, err := exec.Command("go", "build", "-o", appset, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := t.TempDir()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.Output()
		if code := cmd.ProcessState.ExitCode(); err != nil && !(name == cmpDefaults && code == 3) {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return out
	}
	write := func(path, text string) {
		t.Helper()
		p := filepath.Join(repo, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	configMap := func(name, value string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  v: " + value + "\n"
	}
	write("argocd/appset.yaml", `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: dirs
  namespace: argocd
spec:
  goTemplate: true
  generators:
    - git:
        repoURL: https://github.com/example/gitops.git
        revision: HEAD
        directories: [{path: apps/*}]
  template:
    metadata:
      name: '{{.path.basename}}'
    spec:
      project: default
      source: {repoURL: https://github.com/example/gitops.git, path: '{{.path.path}}', targetRevision: HEAD}
      destination: {server: https://kubernetes.default.svc, namespace: '{{.path.basename}}'}
`)
	write("apps/guestbook/cm.yaml", configMap("guestbook", "a"))
	write("apps/shop/cm.yaml", configMap("shop", "a"))
	run("git", "init", "-q", "-b", "main")
	run("git", "remote", "add", "origin", "https://github.com/example/gitops.git")
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "base")
	write("apps/cart/cm.yaml", configMap("cart", "a"))
	write("apps/shop/cm.yaml", configMap("shop", "b"))
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "head")

	out := run(cmpDefaults, "preview", "--base", "HEAD~1", "--head", "HEAD", "--appset-generator", appset, "-o", "json")
	var rep struct {
		Apps []struct {
			Kind, Name, Parent, Change string
			Resources                  []struct{ Kind, Name, Change string }
		}
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, a := range rep.Apps {
		var res []string
		for _, r := range a.Resources {
			res = append(res, r.Kind+" "+r.Name+" "+r.Change)
		}
		got[a.Name] = a.Kind + " " + a.Change + " parent=" + a.Parent + " [" + strings.Join(res, ", ") + "]"
	}
	want := map[string]string{
		"dirs":      "ApplicationSet modified parent= [Application cart added]",
		"cart":      "Application added parent=argocd/dirs [ConfigMap cart added]",
		"shop":      "Application modified parent=argocd/dirs [ConfigMap shop modified]",
		"guestbook": "Application unchanged parent=argocd/dirs []",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("apps %v, want %d", got, len(want))
	}
}
