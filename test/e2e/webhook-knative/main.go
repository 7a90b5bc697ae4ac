// Command webhook-knative serves Knative Serving's defaulting admission
// webhook from the release's own Go module (this module's go.mod pins it)
// over HTTPS on loopback: knative.dev/pkg's defaulting admission controller
// with the types and the configuration store of serving's cmd/webhook, its
// Admit called for each AdmissionReview the way knative.dev/pkg's handler
// calls it.
//
// What is repeated here: the list of defaulted types (a variable of
// serving's main package), and the few lines of knative.dev/pkg's
// unexported HTTP handler (decode the review, a logger and the request in
// the context, Admit, answer with the request's UID). The controller side
// of the operator's webhook (the reconcilers that write the certificate and
// the webhook configuration) does not run: its clients are built, never
// called; the test registers the configuration.
//
// Configuration: the config-defaults, config-features and config-autoscaler
// ConfigMaps of a default installation, whose data holds nothing but the
// '_example' key Knative ignores, so the release's built-in defaults apply.
// It serves with the certificate the test gives (flags -tls-cert-file,
// -tls-private-key-file), prints one JSON line on stdout, {"url", "module",
// "version", "configuration", "paths"}, and serves until stdin is closed,
// so it never outlives the test that started it.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"go.uber.org/zap"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/apis"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/injection"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"
	"knative.dev/pkg/webhook"
	"knative.dev/pkg/webhook/resourcesemantics"
	"knative.dev/pkg/webhook/resourcesemantics/defaulting"
	autoscalingv1alpha1 "knative.dev/serving/pkg/apis/autoscaling/v1alpha1"
	apisconfig "knative.dev/serving/pkg/apis/config"
	servingv1 "knative.dev/serving/pkg/apis/serving/v1"
	servingv1beta1 "knative.dev/serving/pkg/apis/serving/v1beta1"
	asconfig "knative.dev/serving/pkg/autoscaler/config"
)

const (
	module = "knative.dev/serving"
	// name and path are what serving's cmd/webhook gives the defaulting
	// controller; its reconciler writes the path into the configuration.
	name = "webhook.serving.knative.dev"
	path = "/defaulting"
)

// types is serving's cmd/webhook list of the resources it defaults.
var types = map[schema.GroupVersionKind]resourcesemantics.GenericCRD{
	servingv1.SchemeGroupVersion.WithKind("Revision"):                &servingv1.Revision{},
	servingv1.SchemeGroupVersion.WithKind("Configuration"):           &servingv1.Configuration{},
	servingv1.SchemeGroupVersion.WithKind("Route"):                   &servingv1.Route{},
	servingv1.SchemeGroupVersion.WithKind("Service"):                 &servingv1.Service{},
	autoscalingv1alpha1.SchemeGroupVersion.WithKind("PodAutoscaler"): &autoscalingv1alpha1.PodAutoscaler{},
	autoscalingv1alpha1.SchemeGroupVersion.WithKind("Metric"):        &autoscalingv1alpha1.Metric{},
	netv1alpha1.SchemeGroupVersion.WithKind("Certificate"):           &netv1alpha1.Certificate{},
	netv1alpha1.SchemeGroupVersion.WithKind("Ingress"):               &netv1alpha1.Ingress{},
	netv1alpha1.SchemeGroupVersion.WithKind("ServerlessService"):     &netv1alpha1.ServerlessService{},
	servingv1beta1.SchemeGroupVersion.WithKind("DomainMapping"):      &servingv1beta1.DomainMapping{},
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "webhook-knative: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if os.Getenv(system.NamespaceEnvKey) == "" {
		if err := os.Setenv(system.NamespaceEnvKey, "knative-serving"); err != nil {
			return err
		}
	}
	zl := zap.NewNop()
	if os.Getenv("WEBHOOK_LOGS") != "" {
		zl, _ = zap.NewDevelopment()
	}
	logger := zl.Sugar()
	ctx := logging.WithLogger(context.Background(), logger)
	ctx = webhook.WithOptions(ctx, webhook.Options{ServiceName: "webhook", Port: 8443, SecretName: "webhook-certs"})
	// The controller's clients and informers, never started nor called:
	// Admit reads neither.
	ctx, _ = injection.Default.SetupInformers(ctx, &rest.Config{Host: "https://127.0.0.1:1"})

	var cms []*corev1.ConfigMap
	for _, n := range []string{apisconfig.DefaultsConfigName, apisconfig.FeaturesConfigName, asconfig.ConfigName} {
		cms = append(cms, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: system.Namespace()}})
	}
	store := apisconfig.NewStore(logger.Named("config-store"))
	store.WatchConfigs(configmap.NewStaticWatcher(cms...))
	impl := defaulting.NewAdmissionController(ctx, name, path, types, store.ToContext, false)
	ac, ok := impl.Reconciler.(webhook.AdmissionController)
	if !ok {
		return fmt.Errorf("the defaulting controller is no admission controller")
	}

	mux := http.NewServeMux()
	mux.HandleFunc(ac.Path(), func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, fmt.Sprint("could not decode body: ", err), http.StatusBadRequest)
			return
		}
		rctx := logging.WithLogger(r.Context(), logger)
		rctx = apis.WithHTTPRequest(rctx, r)
		resp := ac.Admit(rctx, review.Request)
		resp.UID = review.Request.UID
		out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	cert, err := servingCert()
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.MaxBytesHandler(mux, 3<<20), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); _ = srv.Close() }()
	version := "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == module {
				version = d.Version
			}
		}
	}
	config := "config-defaults, config-features and config-autoscaler of a default installation (no keys set: the release's built-in defaults)"
	ready, _ := json.Marshal(map[string]any{"url": "https://" + l.Addr().String(), "module": module,
		"version": version, "configuration": config, "paths": map[string]string{name: ac.Path()}})
	fmt.Println(string(ready))
	if err := srv.ServeTLS(l, "", ""); err != http.ErrServerClosed {
		return err
	}
	return nil
}

var (
	certFile = flag.String("tls-cert-file", "", "PEM file of the serving certificate for 127.0.0.1 (the test makes it)")
	keyFile  = flag.String("tls-private-key-file", "", "PEM file of its private key")
)

// servingCert loads the serving certificate the test gives
// (-tls-cert-file, -tls-private-key-file); the test registers the webhook
// with its CA.
func servingCert() (tls.Certificate, error) {
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		return tls.Certificate{}, fmt.Errorf("-tls-cert-file and -tls-private-key-file are required")
	}
	return tls.LoadX509KeyPair(*certFile, *keyFile)
}
