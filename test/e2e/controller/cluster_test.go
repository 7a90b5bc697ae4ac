package controller

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/tracing"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/test/utils/ktesting"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
)

const adminToken = "e2e-admin-token"

// kubeServer is one kube-apiserver on its own embedded etcd.
//
// Argo CD reaches it as https://127.0.0.1:PORT (cfg, kubeconfig), the
// test's own clients as https://localhost:PORT, so that the request
// metrics of Argo CD's clients, labelled by host, count Argo CD's requests
// only.
type kubeServer struct {
	name       string
	cfg        *rest.Config         // for Argo CD: loopback admin config (system:masters)
	host       string               // https://127.0.0.1:PORT
	kubeconfig string               // for Argo CD: one context, admin by static token
	kube       kubernetes.Interface // the test's clients
	dyn        dynamic.Interface
	crds       apiextclient.Interface
	testCfg    *rest.Config
}

// startKubeServer starts etcd and a kube-apiserver (RBAC, a static admin
// token) and stops both when t ends.
func startKubeServer(t tb, name string) *kubeServer {
	t.Helper()
	dir, err := os.MkdirTemp(tmpRoot, "kube-")
	if err != nil {
		t.Fatal(err)
	}
	etcdURL := servers.StartEtcd(t, filepath.Join(dir, "etcd"))
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(adminToken+",e2e-admin,1,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := servers.StartKubeAPIServer(t, name, etcdURL, tokens)

	s := &kubeServer{name: name, cfg: rest.CopyConfig(ts.ClientConfig)}
	s.cfg.QPS, s.cfg.Burst = 200, 400
	s.host = "https://127.0.0.1:" + strconv.Itoa(ts.ServerOpts.SecureServing.BindPort)
	s.kubeconfig = filepath.Join(dir, "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: %s}
contexts:
- name: admin
  context: {cluster: e2e, user: admin}
current-context: admin
`, s.host, adminToken)
	if err := os.WriteFile(s.kubeconfig, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ts.ServerOpts.SecureServing.BindPort)
	s.testCfg = &rest.Config{
		Host: "https://localhost:" + port, BearerToken: adminToken,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             200, Burst: 400,
	}
	if s.kube, err = kubernetes.NewForConfig(s.testCfg); err != nil {
		t.Fatal(err)
	}
	if s.dyn, err = dynamic.NewForConfig(s.testCfg); err != nil {
		t.Fatal(err)
	}
	if s.crds, err = apiextclient.NewForConfig(s.testCfg); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *kubeServer) ensureNamespace(t tb, name string) {
	t.Helper()
	_, err := s.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("namespace %s: %v", name, err)
	}
}

// applyCRDs creates or replaces CRDs and waits until they are served.
func (s *kubeServer) applyCRDs(t tb, crds []*apiextv1.CustomResourceDefinition) {
	t.Helper()
	ctx := context.Background()
	c := s.crds.ApiextensionsV1().CustomResourceDefinitions()
	updated := false
	for _, crd := range crds {
		cur, err := c.Get(ctx, crd.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = c.Create(ctx, crd, metav1.CreateOptions{})
		case err == nil:
			crd = crd.DeepCopy()
			crd.ResourceVersion = cur.ResourceVersion
			_, err = c.Update(ctx, crd, metav1.UpdateOptions{})
			updated = true
		}
		if err != nil {
			t.Fatalf("CRD %s: %v", crd.Name, err)
		}
	}
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			cur, err := c.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, cond := range cur.Status.Conditions {
				if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("CRD %s not established: %v", crd.Name, err)
		}
	}
	if updated {
		// An updated schema reaches the API server's handlers a moment
		// after the update.
		time.Sleep(3 * time.Second)
	}
	// Served versions reach discovery a moment after Established.
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			gv := crd.Spec.Group + "/" + v.Name
			err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
				rl, err := s.kube.Discovery().ServerResourcesForGroupVersion(gv)
				if err != nil {
					return false, nil
				}
				for _, r := range rl.APIResources {
					if r.Name == crd.Spec.Names.Plural {
						return true, nil
					}
				}
				return false, nil
			})
			if err != nil {
				t.Fatalf("%s %s not in discovery: %v", gv, crd.Spec.Names.Plural, err)
			}
		}
	}
	// Argo CD's cluster cache reloads the OpenAPI schema (its diffs' GVK
	// parser) on every CRD event, and the API server publishes a CRD's
	// schema a moment after it serves the CRD: a reload in between leaves
	// the kinds out of the parser ("unable to resolve parseableType") until
	// the next CRD event. Wait until Argo CD's own loader has them, then
	// send that event.
	s.waitParser(t, crds)
	for _, crd := range crds {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"e2e.cmp-defaults.io/published":%q}}}`, strconv.FormatInt(time.Now().UnixNano(), 10))
		if _, err := c.Patch(ctx, crd.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("CRD %s: %v", crd.Name, err)
		}
	}
}

// waitParser waits until Argo CD's OpenAPI loader gives a GVK parser that
// knows every served version of crds.
func (s *kubeServer) waitParser(t tb, crds []*apiextv1.CustomResourceDefinition) {
	t.Helper()
	kubectl := &kube.KubectlCmd{Log: logr.Discard(), Tracer: tracing.NopTracer{}}
	var missing []schema.GroupVersionKind
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		_, parser, err := kubectl.LoadOpenAPISchema(s.cfg)
		if err != nil || parser == nil {
			return false, nil
		}
		missing = missing[:0]
		for _, crd := range crds {
			for _, v := range crd.Spec.Versions {
				gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
				if v.Served && parser.Type(gvk) == nil {
					missing = append(missing, gvk)
				}
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		t.Fatalf("Argo CD's OpenAPI loader still lacks %v: %v", missing, err)
	}
}

// get reads one object; nil when it does not exist.
func (s *kubeServer) get(t tb, gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	var r dynamic.ResourceInterface = s.dyn.Resource(gvr)
	if ns != "" {
		r = s.dyn.Resource(gvr).Namespace(ns)
	}
	o, err := r.Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("get %s %s/%s: %v", gvr.Resource, ns, name, err)
	}
	return o
}

// tb is what the setup helpers need of a test: the API server's test
// harness takes it, and TestMain's mainTB provides it for the servers that
// live as long as the process.
type tb = ktesting.TB
