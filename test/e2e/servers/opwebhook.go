package servers

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
	"slices"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
)

// Webhook is an operator's own admission webhook, built from its Go module
// at a pinned release by a module of test/e2e (webhook-NAME) and run as a
// process of its own: its k8s.io versions are the operator's, not the
// suite's. The process says what it serves in its first line of output.
type Webhook struct {
	URL string `json:"url"`
	// CAPEM is the CA of the serving certificate it was given.
	CAPEM   string `json:"-"`
	Module  string `json:"module"`
	Version string `json:"version"`
	// Configuration is the operator configuration the process runs with.
	Configuration string `json:"configuration"`
	// Paths and Rules, by webhook name, are what knative.dev/pkg's
	// reconcilers write at run time into a configuration the manifest
	// leaves without them: the path, and one rule per type defaulted.
	Paths map[string]string                                       `json:"paths"`
	Rules map[string][]admissionregistrationv1.RuleWithOperations `json:"rules"`
	// Conversion is the path of the conversion webhook the operator's CRDs
	// name (objects of older versions are stored through it).
	Conversion string `json:"conversion"`
	// Serves, when set, are the only paths the process serves: the
	// manifest's webhooks at other paths are not registered (an operator
	// whose webhooks the process serves in part, OpenKruise's workloads).
	Serves []string `json:"serves"`
	// Dir is the operator module's source in the Go module cache: its CRDs,
	// webhook manifests and samples are read from there, never copied.
	Dir string `json:"-"`
	// Commit is set when the webhook was built from the operator's source
	// at its tag (scripts/webhook-sources.sh; the proxy refuses the module,
	// or serves another commit): the commit of that tag.
	Commit string `json:"-"`
}

// Ref names the operator code the webhook runs, for learned files.
func (w *Webhook) Ref() string {
	ref := w.Module + "@" + w.Version
	if w.Commit != "" {
		ref += " built from its source at commit " + w.Commit
	}
	return ref
}

// Options say which webhook to start and how.
type Options struct {
	Src     string   // the webhook module: test/e2e/webhook-NAME
	Flags   []string // go build flags: another release's go.mod (-modfile), build tags
	Env     []string // added to the process's environment: the operator's configuration
	BinDir  string   // where the binary is written
	CertDir string   // where the serving certificate is made, once per process
	// GoEnv is added to the go commands' environment: the caches, for a
	// suite that has moved HOME.
	GoEnv []string
}

// StartWebhook builds the webhook module o.Src (one build at a time, with
// -trimpath like the root module: e2ekit.Build; without optimization,
// inlining or symbols, since a webhook answers a few hundred requests and
// its Kubernetes graph compiles with a fifth less CPU so: 202 -> 163 CPU-s
// for webhook-tekton on an empty build cache) and starts it; it stops
// when t ends (the process exits when its stdin closes). What the process
// wrote on stderr is shown if it dies before it is ready, and always with
// E2E_LOGS set.
func StartWebhook(t TB, o Options) *Webhook {
	t.Helper()
	name := filepath.Base(o.Src)
	start := time.Now()
	bin := filepath.Join(o.BinDir, name)
	build, err := o.goCommand(append(append([]string{"build", "-trimpath", "-gcflags=all=-N -l", "-ldflags=-s -w"}, o.Flags...), "-o", bin, ".")...)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e2ekit.Build(build); err != nil {
		t.Fatalf("building %s: %v\n%s", o.Src, err, out)
	}
	built := time.Since(start)
	cert := ServingCert(t, o.CertDir, o.GoEnv)
	cmd := exec.Command(bin, "-tls-cert-file", cert.CertFile, "-tls-private-key-file", cert.KeyFile)
	cmd.Env = append(os.Environ(), o.Env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
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
		t.Fatalf("%s did not start: %v\n%s", name, err, stderr.String())
	}
	w := &Webhook{CAPEM: string(cert.CAPEM)}
	if err := json.Unmarshal([]byte(line), w); err != nil {
		t.Fatalf("%s: %v: %q", name, err, line)
	}
	w.Dir = o.ModuleDir(t, w.Module)
	if c, err := os.ReadFile(filepath.Join(w.Dir, ".commit")); err == nil {
		w.Commit = strings.TrimSpace(string(c))
	}
	t.Logf("%s: %s@%s built in %s, serving at %s", name, w.Module, w.Version, built.Round(time.Millisecond), w.URL)
	return w
}

// ModuleDir is where module, which the webhook module requires (with the
// -modfile of o.Flags, if any), is in the Go module cache.
func (o Options) ModuleDir(t TB, module string) string {
	t.Helper()
	dir, err := e2ekit.ModuleDir(o.goCommand, module, o.Flags...)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goCommand is a go command in the webhook module, with the toolchain the
// module selects and o.GoEnv.
func (o Options) goCommand(args ...string) (*exec.Cmd, error) {
	cmd, err := e2ekit.GoCommand(o.Src, args...)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, o.GoEnv...)
	return cmd, nil
}

// Configurations are the MutatingWebhookConfigurations among objs (an
// operator's manifest) as the operator ships them, with the service
// reference replaced by the process's URL and CA, and the paths and rules
// the process reports where the manifest leaves them out.
func (w *Webhook) Configurations(objs []*unstructured.Unstructured) ([]*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	var out []*admissionregistrationv1.MutatingWebhookConfiguration
	for _, o := range objs {
		if o.GetKind() != "MutatingWebhookConfiguration" {
			continue
		}
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, cfg); err != nil {
			return nil, err
		}
		var kept []admissionregistrationv1.MutatingWebhook
		for i := range cfg.Webhooks {
			wh := &cfg.Webhooks[i]
			cc := &wh.ClientConfig
			if p, ok := w.Paths[wh.Name]; ok && cc.Service != nil && cc.Service.Path == nil {
				cc.Service.Path = &p
			}
			if r, ok := w.Rules[wh.Name]; ok && len(wh.Rules) == 0 {
				wh.Rules = r
			}
			if cc.Service == nil || cc.Service.Path == nil {
				return nil, fmt.Errorf("webhook %s has no service path", wh.Name)
			}
			if len(w.Serves) > 0 && !slices.Contains(w.Serves, *cc.Service.Path) {
				continue
			}
			url := w.URL + *cc.Service.Path
			cc.URL, cc.Service, cc.CABundle = &url, nil, []byte(w.CAPEM)
			kept = append(kept, *wh)
		}
		if cfg.Webhooks = kept; len(kept) == 0 {
			continue
		}
		out = append(out, cfg)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no MutatingWebhookConfiguration")
	}
	return out, nil
}

// PointConversion points a CRD whose conversion is a webhook at the
// process, when it serves one.
func (w *Webhook) PointConversion(crd *apiextv1.CustomResourceDefinition) {
	if cv := crd.Spec.Conversion; w.Conversion != "" && cv != nil && cv.Strategy == apiextv1.WebhookConverter && cv.Webhook != nil {
		url := w.URL + w.Conversion
		cv.Webhook.ClientConfig = &apiextv1.WebhookClientConfig{URL: &url, CABundle: []byte(w.CAPEM)}
	}
}

// Cert is a serving certificate for 127.0.0.1 that is its own CA.
type Cert struct {
	CertFile, KeyFile string
	CAPEM             []byte // the CA bundle the API server is given
}

var (
	certOnce sync.Once
	theCert  Cert
	certErr  error
)

// ServingCert makes the webhooks' serving certificate once per process, in
// dir, with the Go distribution's crypto/tls/generate_cert.go.
func ServingCert(t TB, dir string, goEnv []string) Cert {
	t.Helper()
	certOnce.Do(func() {
		env := append(e2ekit.RootModuleGoEnv(), goEnv...)
		goCmd, err := e2ekit.LookPath("go", env)
		if err != nil {
			certErr = err
			return
		}
		root := exec.Command(goCmd, "env", "GOROOT")
		root.Env = env
		goroot, err := root.Output()
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err != nil {
			certErr = err
			return
		}
		gen := exec.Command(goCmd, "run", filepath.Join(strings.TrimSpace(string(goroot)), "src", "crypto", "tls", "generate_cert.go"),
			"-host", "127.0.0.1", "-ca", "-ecdsa-curve", "P256", "-duration", "24h")
		gen.Dir, gen.Env = dir, env
		if out, err := gen.CombinedOutput(); err != nil {
			certErr = fmt.Errorf("generate_cert.go: %v\n%s", err, out)
			return
		}
		theCert = Cert{CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
		theCert.CAPEM, certErr = os.ReadFile(theCert.CertFile)
	})
	if certErr != nil {
		t.Fatalf("making the webhooks' serving certificate: %v", certErr)
	}
	return theCert
}

// WaitAdmitted dry-run creates probe (a gvr) until admission changes it as
// mutated says: the API server calls a newly registered webhook within
// seconds.
func WaitAdmitted(t TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, probe *unstructured.Unstructured, mutated func(*unstructured.Unstructured) bool) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		out, err := dyn.Resource(gvr).Namespace(probe.GetNamespace()).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
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
