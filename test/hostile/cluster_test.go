package hostile

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// kubeconfig names server with a bearer token, or with an exec credential
// plugin when plugin is set.
func kubeconfig(t *testing.T, server, plugin string) string {
	user := "    token: secret-token\n"
	if plugin != "" {
		user = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + plugin + "\n      interactiveMode: Never\n"
	}
	p := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: " + server + "}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user:\n" + user
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runCheck runs check against a kubeconfig and asserts it failed closed.
func runCheck(t *testing.T, kc, want string, extra ...string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "es.yaml"), []byte(es), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"check", "--kubeconfig", kc, "--request-timeout", "5s", "es.yaml"}, extra...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	t.Logf("measured: %v, %.2f s, stderr %d bytes", err, took.Seconds(), stderr.Len())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("want exit 1, got %v: %.2000s", err, stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout: %.200q", stdout.String())
	}
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say %q: %.2000s", want, stderr.String())
	}
	var reasons []string
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !strings.HasPrefix(l, "Warning: ") {
			reasons = append(reasons, l)
		}
	}
	if len(reasons) != 1 {
		t.Errorf("want one line, got %d: %.2000s", len(reasons), stderr.String())
	}
	checkClean(t, stderr.Bytes())
	if took > 15*time.Second {
		t.Errorf("took %v", took)
	}
}

// An API server that sends an endless /version body: the response is
// bounded, the run ends with one line.
func TestClusterEndlessResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"gitVersion":"`)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	runCheck(t, kubeconfig(t, srv.URL, ""), "larger than")
}

// A redirect to another host is refused: the token never reaches it.
func TestClusterRedirectKeepsCredentials(t *testing.T) {
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
		fmt.Fprint(w, `{"gitVersion":"v1.34.0"}`)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	runCheck(t, kubeconfig(t, srv.URL, ""), "follows no redirects")
	if v, _ := leaked.Load().(string); v != "" {
		t.Errorf("the other host received %q", v)
	}
}

// An exec credential plugin is refused with --no-exec-plugin.
func TestClusterExecPluginRefused(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	plugin := filepath.Join(t.TempDir(), "plugin.sh")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runCheck(t, kubeconfig(t, "https://127.0.0.1:1", plugin), "--no-exec-plugin refuses it", "--no-exec-plugin")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the plugin ran")
	}
}
