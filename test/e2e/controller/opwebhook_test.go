package controller

// The build-start-register steps of test/e2e/apiserver/opwebhook_test.go
// for this suite's API server (test files cannot be imported across
// modules).
import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
)

// operatorWebhook is an operator's own admission webhook process, built
// from test/e2e/webhook-NAME (the operator's Go module at a pinned release).
type operatorWebhook struct {
	URL     string `json:"url"`
	CAPEM   string `json:"-"` // of the certificate it was given (servingCert)
	Module  string `json:"module"`
	Version string `json:"version"`
	// Dir is the operator module's source in the Go module cache: its CRDs
	// and webhook manifests are read from there, never copied.
	Dir string `json:"-"`
	// Paths and Rules, by webhook name, are what knative.dev/pkg's
	// reconcilers write into a configuration the manifest leaves without
	// them; Conversion is the path of the conversion webhook its CRDs name.
	Paths      map[string]string                                       `json:"paths"`
	Rules      map[string][]admissionregistrationv1.RuleWithOperations `json:"rules"`
	Conversion string                                                  `json:"conversion"`
}

// startOperatorWebhook builds ../webhook-NAME and starts it with env added
// to its environment; it stops when t ends (it exits when stdin closes).
// TestMain moved HOME: the build uses the caller's caches, and the module's
// own toolchain, as e2ekit.RootModuleGoEnv does for the root module.
func startOperatorWebhook(t tb, name string, env ...string) *operatorWebhook {
	t.Helper()
	src := filepath.Join("..", "webhook-"+name)
	bin := filepath.Join(tmpRoot, "bin", "webhook-"+name)
	goEnv := append(e2ekit.RootModuleGoEnv(), "GOMODCACHE="+modCache, "GOCACHE="+goCache)
	goCmd, err := e2ekit.LookPath("go", goEnv)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	build := exec.Command(goCmd, "build", "-trimpath", "-o", bin, ".")
	build.Dir, build.Env = src, goEnv
	if out, err := e2ekit.Build(build); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, out)
	}
	built := time.Since(start)
	cert, key, caPEM := servingCert(t, goCmd, goEnv)
	cmd := exec.Command(bin, "-tls-cert-file", cert, "-tls-private-key-file", key)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer // what it says before it dies, for the failure
	cmd.Stderr = &stderr
	if os.Getenv("E2E_LOGS") != "" {
		cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Wait()
		t.Fatalf("webhook-%s did not start: %v\n%s", name, err, stderr.String())
	}
	w := &operatorWebhook{CAPEM: string(caPEM)}
	if err := json.Unmarshal([]byte(line), w); err != nil {
		t.Fatalf("webhook-%s: %v: %q", name, err, line)
	}
	w.Dir = moduleDir(t, name, w.Module)
	t.Logf("webhook-%s: %s@%s built in %s, serving at %s", name, w.Module, w.Version, built.Round(time.Millisecond), w.URL)
	return w
}

// moduleDir is where a module that ../webhook-NAME requires is in the Go
// module cache.
func moduleDir(t tb, name, module string) string {
	t.Helper()
	goEnv := append(e2ekit.RootModuleGoEnv(), "GOMODCACHE="+modCache, "GOCACHE="+goCache)
	goCmd, err := e2ekit.LookPath("go", goEnv)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := e2ekit.ModuleDir(func(args ...string) (*exec.Cmd, error) {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir, cmd.Env = filepath.Join("..", "webhook-"+name), goEnv
		return cmd, nil
	}, module)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	certOnce          sync.Once
	certFile, keyFile string
	certPEM           []byte
	certErr           error
)

// servingCert makes the webhooks' serving certificate once per run, as
// test/e2e/apiserver does, with the Go distribution's
// crypto/tls/generate_cert.go (of goCmd): self-signed for 127.0.0.1 and its
// own CA, so that it is the CA bundle the API server is given.
func servingCert(t tb, goCmd string, goEnv []string) (cert, key string, caPEM []byte) {
	t.Helper()
	certOnce.Do(func() {
		dir := filepath.Join(tmpRoot, "webhook-cert")
		env := exec.Command(goCmd, "env", "GOROOT")
		env.Env = goEnv
		goroot, err := env.Output()
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err != nil {
			certErr = err
			return
		}
		gen := exec.Command(goCmd, "run", filepath.Join(strings.TrimSpace(string(goroot)), "src", "crypto", "tls", "generate_cert.go"),
			"-host", "127.0.0.1", "-ca", "-ecdsa-curve", "P256", "-duration", "24h")
		gen.Dir, gen.Env = dir, goEnv
		if out, err := gen.CombinedOutput(); err != nil {
			certErr = fmt.Errorf("generate_cert.go: %v\n%s", err, out)
			return
		}
		certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
		certPEM, certErr = os.ReadFile(certFile)
	})
	if certErr != nil {
		t.Fatalf("making the webhooks' serving certificate: %v", certErr)
	}
	return certFile, keyFile, certPEM
}

// installCRDs applies the operator's own CRDs from its module.
func (w *operatorWebhook) installCRDs(t tb, s *kubeServer, glob string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.Dir, glob))
	if len(files) == 0 {
		t.Fatalf("%s: no CRDs at %s", w.Module, glob)
	}
	var crds []*apiextv1.CustomResourceDefinition
	for _, o := range readObjects(t, files...) {
		crd := &apiextv1.CustomResourceDefinition{}
		fromUnstructured(t, o, crd)
		if cv := crd.Spec.Conversion; w.Conversion != "" && cv != nil && cv.Strategy == apiextv1.WebhookConverter && cv.Webhook != nil {
			url := w.URL + w.Conversion
			cv.Webhook.ClientConfig = &apiextv1.WebhookClientConfig{URL: &url, CABundle: []byte(w.CAPEM)}
		}
		crds = append(crds, crd)
	}
	s.applyCRDs(t, crds)
}

// register creates the MutatingWebhookConfigurations of the operator's
// manifest (a file in its module) with the service reference replaced by
// the process's URL and CA, and deletes them when t ends, so that no later
// request waits on a stopped webhook.
func (w *operatorWebhook) register(t tb, s *kubeServer, manifest string) {
	t.Helper()
	ctx := context.Background()
	api := s.kube.AdmissionregistrationV1().MutatingWebhookConfigurations()
	n := 0
	for _, o := range readObjects(t, filepath.Join(w.Dir, manifest)) {
		if o.GetKind() != "MutatingWebhookConfiguration" {
			continue
		}
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		fromUnstructured(t, o, cfg)
		for i := range cfg.Webhooks {
			cc := &cfg.Webhooks[i].ClientConfig
			if p, ok := w.Paths[cfg.Webhooks[i].Name]; ok && cc.Service != nil && cc.Service.Path == nil {
				cc.Service.Path = &p
			}
			if r, ok := w.Rules[cfg.Webhooks[i].Name]; ok && len(cfg.Webhooks[i].Rules) == 0 {
				cfg.Webhooks[i].Rules = r
			}
			if cc.Service == nil || cc.Service.Path == nil {
				t.Fatalf("%s: webhook %s has no service path", manifest, cfg.Webhooks[i].Name)
			}
			url := w.URL + *cc.Service.Path
			cc.URL, cc.Service, cc.CABundle = &url, nil, []byte(w.CAPEM)
		}
		if _, err := api.Create(ctx, cfg, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = api.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })
		n++
	}
	if n == 0 {
		t.Fatalf("%s: no MutatingWebhookConfiguration", manifest)
	}
}

// waitAdmitted dry-run creates probe until admission changes it as mutated
// says (the API server calls a new webhook within seconds).
func waitAdmitted(t tb, s *kubeServer, gvr schema.GroupVersionResource, probe *unstructured.Unstructured, mutated func(*unstructured.Unstructured) bool) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		out, err := s.dyn.Resource(gvr).Namespace(probe.GetNamespace()).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			last = err
			return false, nil
		}
		return mutated(out), nil
	})
	if err != nil {
		t.Fatalf("the webhook did not mutate %s within a minute: %v (last error: %v)", probe.GetKind(), err, last)
	}
}
