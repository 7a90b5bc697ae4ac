package apiserver

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
)

// The suite's mutating webhook, defaulting Gadgets the way operators'
// webhooks do, and stamping the request's identity.
const (
	requestUIDAnnotation = "webhooks.e2e.cmp-defaults.io/request-uid"
	teamAnnotation       = "webhooks.e2e.cmp-defaults.io/team"
	creatorAnnotation    = "webhooks.e2e.cmp-defaults.io/creator"
)

// mutateGadget is what the webhook does to a Gadget:
//   - retries: 3 in every item of spec.rules that lacks it;
//   - timeoutSeconds: 30 in items whose protocol is HTTP (a sibling's value),
//     and a timeoutSeconds of 0 rewritten to 1 (a value the user wrote);
//   - replicas: 3 when spec.mode is "ha";
//   - spec.backend created with nested fields when absent;
//   - spec.target.immutable: false when spec.target.creationPolicy is
//     "Owner" (one object of each kind decides nothing by itself: the
//     learner varies the sibling to find out);
//   - a team annotation, the request's UID as an annotation, and the
//     requesting user as a creator annotation (the same in two dry runs
//     by one user: only a second user tells it from a default).
func mutateGadget(obj map[string]any, uid, user string) {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		md["annotations"] = ann
	}
	ann[requestUIDAnnotation] = uid
	if _, ok := ann[creatorAnnotation]; !ok {
		ann[creatorAnnotation] = user
	}
	if _, ok := ann[teamAnnotation]; !ok {
		ann[teamAnnotation] = "platform"
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	rules, _ := spec["rules"].([]any)
	for _, r := range rules {
		r, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := r["retries"]; !ok {
			r["retries"] = 3
		}
		if _, ok := r["timeoutSeconds"]; !ok && r["protocol"] == "HTTP" {
			r["timeoutSeconds"] = 30
		}
		if n, ok := r["timeoutSeconds"].(float64); ok && n == 0 {
			r["timeoutSeconds"] = 1
		}
	}
	if _, ok := spec["replicas"]; !ok && spec["mode"] == "ha" {
		spec["replicas"] = 3
	}
	if tg, ok := spec["target"].(map[string]any); ok && tg["creationPolicy"] == "Owner" {
		if _, ok := tg["immutable"]; !ok {
			tg["immutable"] = false
		}
	}
	if _, ok := spec["backend"]; !ok {
		spec["backend"] = map[string]any{"port": 8080, "tls": map[string]any{"enabled": true, "minVersion": "1.2"}}
	}
}

// webhook is an HTTPS admission webhook on loopback with its own CA.
type webhook struct {
	url      string
	caPEM    []byte
	requests atomic.Int64
	dryRuns  atomic.Int64
}

func startWebhook(t *testing.T) *webhook {
	t.Helper()
	c := servingCert(t)
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &webhook{url: "https://" + l.Addr().String() + "/mutate", caPEM: c.CAPEM}
	srv := &http.Server{Handler: http.HandlerFunc(w.serve), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return w
}

// servingCert is the serving certificate of every webhook the suite
// starts, its own and the operators' (given to their processes as files).
func servingCert(t *testing.T) servers.Cert {
	t.Helper()
	return servers.ServingCert(t, filepath.Join(tmpRoot, "webhook-cert"), nil)
}

func (w *webhook) serve(rw http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(http.MaxBytesReader(rw, r.Body, 1<<20)).Decode(&review); err != nil || review.Request == nil {
		http.Error(rw, "bad admission review", http.StatusBadRequest)
		return
	}
	w.requests.Add(1)
	req := review.Request
	if req.DryRun != nil && *req.DryRun {
		w.dryRuns.Add(1)
	}
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	var obj map[string]any
	if err := json.Unmarshal(req.Object.Raw, &obj); err == nil {
		mutateGadget(obj, string(req.UID), req.UserInfo.Username)
		md := obj["metadata"].(map[string]any)
		patch, _ := json.Marshal([]map[string]any{
			{"op": "add", "path": "/metadata/annotations", "value": md["annotations"]},
			{"op": "add", "path": "/spec", "value": obj["spec"]},
		})
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = patch, &pt
	}
	review.Response = resp
	review.Request = nil
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(review)
}

// registerWebhook installs a MutatingWebhookConfiguration for Gadgets
// (sideEffects None: dry runs reach the webhook) and waits until the API
// server calls it.
func (a *argo) registerWebhook(t *testing.T, w *webhook) {
	t.Helper()
	ctx := context.Background()
	none := admissionregistrationv1.SideEffectClassNone
	fail := admissionregistrationv1.Fail
	timeout := int32(10)
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.learn.e2e.cmp-defaults.io"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "gadgets.learn.e2e.cmp-defaults.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &w.url, CABundle: w.caPEM},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"learn.e2e.cmp-defaults.io"}, APIVersions: []string{"v1"}, Resources: []string{"gadgets"}}}},
			SideEffects:             &none,
			FailurePolicy:           &fail,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}},
	}
	_, err := a.core.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "learn.e2e.cmp-defaults.io/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "probe", "namespace": "default"}, "spec": map[string]any{},
	}}
	m := a.mapping(t, probe)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		out, err := a.dyn.Resource(m.Resource).Namespace("default").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, nil
		}
		return strings.TrimSpace(out.GetAnnotations()[requestUIDAnnotation]) != "", nil
	})
	if err != nil {
		t.Fatalf("the webhook was not called within a minute: %v", err)
	}
}
