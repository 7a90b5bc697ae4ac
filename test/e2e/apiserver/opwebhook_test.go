package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
)

// operatorWebhook is an operator's own admission webhook, built from its Go
// module at a pinned release by a module under test/e2e (webhook-NAME) and
// run as a process of its own: its k8s.io versions are the operator's, not
// this suite's. Other suites reuse it: build, start, register.
type operatorWebhook struct {
	URL string `json:"url"`
	// CAPEM is the CA of the serving certificate the suite gave it
	// (servingCert).
	CAPEM   string `json:"-"`
	Module  string `json:"module"`
	Version string `json:"version"`
	// Configuration is the operator configuration the process runs with.
	Configuration string `json:"configuration"`
	// Paths are the URL paths of webhooks whose manifest names none (the
	// operator writes it at run time, as Knative's reconciler does), by
	// webhook name.
	Paths map[string]string `json:"paths"`
	// Rules are the rules of webhooks whose manifest names none, by
	// webhook name: knative.dev/pkg's reconcilers write one per type the
	// operator defaults, at run time.
	Rules map[string][]admissionregistrationv1.RuleWithOperations `json:"rules"`
	// Conversion is the path of the operator's conversion webhook, which
	// its CRDs name (objects of older versions are stored through it).
	Conversion string `json:"conversion"`
	// Dir is the operator module's source in the Go module cache (as the
	// proxy serves it): its CRDs, webhook manifests and samples are read
	// from there, never copied into this repository.
	Dir string `json:"-"`
	// Commit is set when the module proxy does not serve the release and
	// the webhook was built from the operator's source at its tag
	// (scripts/webhook-sources.sh): the commit of that tag.
	Commit string `json:"-"`
}

// Ref names the operator code the webhook runs, for learned files.
func (w *operatorWebhook) Ref() string {
	ref := w.Module + "@" + w.Version
	if w.Commit != "" {
		ref += " built from its source at commit " + w.Commit + " (the module proxy does not serve " + w.Version + ")"
	}
	return ref
}

// startOperatorWebhookBuild builds ../webhook-NAME with go build flags
// (another release's go.mod with -modfile, the build tags its API needs) and
// starts it with env added to its environment (the operator's
// configuration); it stops when the test ends (the webhook exits when its
// stdin closes).
func startOperatorWebhookBuild(t *testing.T, name string, flags []string, env ...string) *operatorWebhook {
	t.Helper()
	start := time.Now()
	src := filepath.Join("..", "webhook-"+name)
	bin := filepath.Join(t.TempDir(), "webhook-"+name)
	build, err := e2ekit.GoCommand(src, append(append([]string{"build", "-trimpath"}, flags...), "-o", bin, ".")...)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e2ekit.Build(build); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, out)
	}
	built := time.Since(start)
	cert := servingCert(t)
	cmd := exec.Command(bin, "-tls-cert-file", cert.certFile, "-tls-private-key-file", cert.keyFile)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if os.Getenv("E2E_LOGS") == "" {
		cmd.Stderr = nil
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("webhook-%s did not start: %v", name, err)
	}
	w := &operatorWebhook{CAPEM: string(cert.caPEM)}
	if err := json.Unmarshal([]byte(line), w); err != nil {
		t.Fatalf("webhook-%s: %v: %q", name, err, line)
	}
	w.Dir = moduleDir(t, name, w.Module, flags...)
	if c, err := os.ReadFile(filepath.Join(w.Dir, ".commit")); err == nil {
		w.Commit = strings.TrimSpace(string(c))
	}
	t.Logf("webhook-%s: %s@%s built in %s, serving at %s", name, w.Module, w.Version, built.Round(time.Millisecond), w.URL)
	return w
}

// moduleDir is where a module that ../webhook-NAME requires (with the
// -modfile of flags, if any) is in the Go module cache.
func moduleDir(t *testing.T, name, module string, flags ...string) string {
	t.Helper()
	dir, err := e2ekit.ModuleDir(func(args ...string) (*exec.Cmd, error) {
		return e2ekit.GoCommand(filepath.Join("..", "webhook-"+name), args...)
	}, module, flags...)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// register installs the operator's MutatingWebhookConfigurations from its
// install manifest (a file in its module) as the operator ships them,
// with the service reference replaced by the process's URL and CA (and its
// path and rules, when the manifest leaves them to the operator).
func (a *argo) registerOperatorWebhooks(t *testing.T, w *operatorWebhook, manifest string) []*admissionregistrationv1.MutatingWebhookConfiguration {
	t.Helper()
	var out []*admissionregistrationv1.MutatingWebhookConfiguration
	for _, o := range readObjects(t, filepath.Join(w.Dir, manifest)) {
		if o.GetKind() != "MutatingWebhookConfiguration" {
			continue
		}
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, cfg); err != nil {
			t.Fatal(err)
		}
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
		if _, err := a.core.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(context.Background(), cfg, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		out = append(out, cfg)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no MutatingWebhookConfiguration", manifest)
	}
	return out
}

// waitAdmitted dry-run creates probe until admission changes it as mutated
// says (the API server calls a new webhook within seconds).
func (a *argo) waitAdmitted(t *testing.T, probe *unstructured.Unstructured, mutated func(*unstructured.Unstructured) bool) {
	t.Helper()
	m := a.mapping(t, probe)
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		out, err := a.dyn.Resource(m.Resource).Namespace(probe.GetNamespace()).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
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

// accepted keeps the objects the API server accepts from a server-side
// apply, as Argo CD's ServerSideApply=true sync sends them (a dry run in
// namespace ns): a sample the server rejects is no drift question.
func (a *argo) accepted(t *testing.T, objs []*unstructured.Unstructured, ns string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, o := range objs {
		m := a.mapping(t, o)
		c := o.DeepCopy()
		c.SetNamespace(ns)
		if _, err := a.dyn.Resource(m.Resource).Namespace(ns).Apply(context.Background(), c.GetName(), c, metav1.ApplyOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "e2e-accept", Force: true}); err != nil {
			t.Logf("%s/%s: rejected by the API server: %v", o.GetKind(), o.GetName(), err)
			continue
		}
		out = append(out, o)
	}
	return out
}
