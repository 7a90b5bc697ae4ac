package action

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// benchRepo is a git repository of n Applications, a third each a Helm
// chart, a kustomization and a plain directory, whose second commit
// changes `changed` of them.
func benchRepo(b *testing.B, n, changed int) (string, []string, []string) {
	b.Helper()
	dir := b.TempDir()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(path, text string) {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	deployment := func(name, image string) string {
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  selector:\n    matchLabels: {app: %s}\n  template:\n    metadata:\n      labels: {app: %s}\n    spec:\n      containers:\n        - {name: app, image: %q}\n", name, name, name, image)
	}
	var paths []string
	app := func(i int, image string) {
		name := fmt.Sprintf("app%03d", i)
		var path string
		switch i % 3 {
		case 0:
			path = "charts/" + name
			write(path+"/Chart.yaml", "apiVersion: v2\nname: "+name+"\nversion: 0.1.0\n")
			write(path+"/values.yaml", "image: "+image+"\nreplicas: 2\n")
			write(path+"/templates/deployment.yaml", deployment("{{ .Release.Name }}", "{{ .Values.image }}"))
			write(path+"/templates/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ports: [{port: 80}]\n")
			write(path+"/templates/configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n")
		case 1:
			path = "kustomize/" + name + "/overlay"
			write("kustomize/"+name+"/base/kustomization.yaml", "resources: [deployment.yaml, service.yaml]\n")
			write("kustomize/"+name+"/base/deployment.yaml", deployment(name, "base"))
			write("kustomize/"+name+"/base/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: "+name+"\nspec:\n  ports: [{port: 80}]\n")
			write(path+"/kustomization.yaml", "namespace: "+name+"\nresources: [../base]\nimages: [{name: base, newName: "+image+"}]\n")
		default:
			path = "plain/" + name
			write(path+"/deployment.yaml", deployment(name, image))
			write(path+"/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: "+name+"\nspec:\n  ports: [{port: 80}]\n")
		}
		write("argocd/"+name+".yaml", fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: %s\n  namespace: argocd\nspec:\n  project: default\n  source: {repoURL: https://github.com/example/gitops.git, path: %s}\n  destination: {server: https://kubernetes.default.svc, namespace: %s}\n", name, path, name))
		if image == "v1" {
			paths = append(paths, path)
		}
	}
	for i := range n {
		app(i, "v1")
	}
	// An ApplicationSet making 20 more Applications, one per directory.
	write("argocd/appset.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: generated\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n    - git:\n        repoURL: https://github.com/example/gitops.git\n        revision: HEAD\n        directories: [{path: generated/*}]\n  template:\n    metadata:\n      name: '{{.path.basename}}'\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/gitops.git, path: '{{.path.path}}'}\n      destination: {server: https://kubernetes.default.svc, namespace: '{{.path.basename}}'}\n")
	for i := range 20 {
		write(fmt.Sprintf("generated/gen%02d/deployment.yaml", i), deployment(fmt.Sprintf("gen%02d", i), "v1"))
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	for i := range changed {
		app(i*(n/changed), "v2")
	}
	git("add", "-A")
	git("commit", "-q", "-m", "head")
	return dir, env, paths
}

// BenchmarkPreview previews a pull request that changes 10 of 100
// Applications, against the baseline of rendering the 100 sources once
// with the render use case, in the same loop: ratio is preview/render. The
// ApplicationSet's 20 Applications are generated when
// CMP_DEFAULTS_APPSET names the cmp-defaults-appset program, else it is
// not evaluated.
func BenchmarkPreview(b *testing.B) {
	dir, environ, paths := benchRepo(b, 100, 10)
	ctx := context.Background()
	var tp, tr time.Duration
	reused := 0
	for b.Loop() {
		t0 := time.Now()
		env := newEnv(b)
		env.Environ, env.WorkDir = environ, dir
		p := &Preview{Base: "HEAD~1", Head: "HEAD", AppSetGenerator: os.Getenv("CMP_DEFAULTS_APPSET")}
		res, err := p.Run(ctx, env)
		if err != nil || !res.Found {
			b.Fatal(err, res)
		}
		reused = p.reused
		t1 := time.Now()
		for _, p := range paths {
			r := NewRender()
			r.Dir, r.Rendering.RepoRoot = filepath.Join(dir, p), dir
			if _, err := r.Run(ctx, newEnv(b)); err != nil {
				b.Fatal(err)
			}
		}
		tp, tr = tp+t1.Sub(t0), tr+time.Since(t1)
	}
	b.ReportMetric(tp.Seconds()/float64(b.N), "s/preview")
	b.ReportMetric(tr.Seconds()/float64(b.N), "s/render-all")
	b.ReportMetric(float64(tp)/float64(tr), "ratio")
	b.ReportMetric(float64(reused), "rendered-once")
}
