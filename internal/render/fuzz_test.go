package render

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// recordTransport counts HTTP requests instead of sending them.
type recordTransport struct{ n *atomic.Int64 }

func (r recordTransport) RoundTrip(*http.Request) (*http.Response, error) {
	r.n.Add(1)
	return nil, errors.New("offline")
}

// FuzzKustomizePreflight: any resources/generators/components entry the
// preflight accepts is a plain path inside the root, and so is any file a
// builtin plugin config names (written inline or in a file), so that
// kustomize itself, run without the offline guard, neither runs git nor
// sends an HTTP request for it, nor reads outside the root.
func FuzzKustomizePreflight(f *testing.F) {
	for _, s := range []string{"cm.yaml", "base", "github.com/evil/repo", "alice@127.0.0.1:repo.git", "https://example.com/x.yaml",
		"git::https://h/r", "gh:o/r", "ssh://git@h/r.git", "file:///etc", "example.com:o/r", "GitHub.com/x/y", "base?ref=v1",
		"../outside", "/etc/passwd", "x/_git/y", "r.git", "HTTP://h/x.yaml", "http://127.0.0.1:1/x", "hTtPs://localhost:1/x",
		"k=http://127.0.0.1:1/x", "//127.0.0.1:1/x", "k=cm.yaml", "http:/127.0.0.1:1/x", " http://127.0.0.1:1/x"} {
		f.Add(s)
	}
	bin := f.TempDir()
	marker := filepath.Join(f.TempDir(), "ran")
	for _, tool := range []string{"git", "ssh"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	oldPath, oldTmp, oldTransport := os.Getenv("PATH"), os.Getenv("TMPDIR"), http.DefaultTransport
	f.Cleanup(func() {
		os.Setenv("PATH", oldPath)
		os.Setenv("TMPDIR", oldTmp)
		http.DefaultTransport = oldTransport
	})
	os.Setenv("PATH", bin)
	os.Setenv("TMPDIR", f.TempDir())
	var requests atomic.Int64
	http.DefaultTransport = recordTransport{&requests}
	f.Fuzz(func(t *testing.T, entry string) {
		if strings.ContainsAny(entry, "\n\r\x00") || strings.TrimSpace(entry) == "" {
			return
		}
		top := t.TempDir()
		root := filepath.Join(top, "repo")
		write(t, root, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
		write(t, root, "base/kustomization.yaml", "resources: [../cm.yaml]\n")
		write(t, top, "outside/kustomization.yaml", "resources: []\n")
		quoted := "'" + strings.ReplaceAll(entry, "'", "''") + "'"
		gen := "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: g}\nfiles:\n- " + quoted + "\nenvs:\n- " + quoted + "\n"
		patch := "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: p}\npath: " + quoted + "\ntarget: {kind: ConfigMap}\n"
		write(t, root, "gen.yaml", gen)
		write(t, root, "patch.yaml", patch)
		for _, key := range []string{"resources", "generators", "components", "plugin inline", "plugin file", "transformer file"} {
			switch key {
			case "plugin inline":
				write(t, root, "kustomization.yaml", "generators:\n- |\n"+indent(gen)+"\n")
			case "plugin file":
				write(t, root, "kustomization.yaml", "generators: [gen.yaml]\n")
			case "transformer file":
				write(t, root, "kustomization.yaml", "resources: [cm.yaml]\ntransformers: [patch.yaml]\n")
			default:
				write(t, root, "kustomization.yaml", key+":\n- "+quoted+"\n")
			}
			real, _ := filepath.EvalSymlinks(root)
			if _, err := preflightKustomization(context.Background(), real, real, map[string]bool{}, newBudget(0)); err != nil {
				continue
			}
			requests.Store(0)
			fsys := &rootFS{root: real, disk: filesys.MakeFsOnDisk()}
			_, _ = runKrusty(fsys, real)
			if _, err := os.Stat(marker); err == nil {
				os.Remove(marker)
				t.Fatalf("%s entry %q passed the preflight, and kustomize ran git for it", key, entry)
			}
			if requests.Load() > 0 {
				t.Fatalf("%s entry %q passed the preflight, and kustomize sent an HTTP request for it", key, entry)
			}
			if v := fsys.firstViolation(); v != nil {
				t.Fatalf("%s entry %q passed the preflight, and kustomize read outside the root: %v", key, entry, v)
			}
		}
	})
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ")
}
