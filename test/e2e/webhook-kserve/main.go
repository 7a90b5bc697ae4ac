// Command webhook-kserve serves KServe's InferenceService defaulting webhook
// from the operator's own Go module (this module's go.mod pins the release,
// with the release's own replace directives: its k8s.io and
// controller-runtime) over HTTPS on loopback, the way its manager
// (cmd/manager) serves it: a controller-runtime manager whose scheme is
// client-go's with KServe's API types added, and
// ctrl.NewWebhookManagedBy(mgr).For(&v1beta1.InferenceService{}) with the
// release's own InferenceServiceDefaulter and InferenceServiceValidator
// (before v0.14 the type's own Default and ValidateCreate: build tag
// typedefault, register_*.go), served from the manager's webhook mux
// (before v0.12 through controller-runtime's older options: build tag
// oldmanager, manager_*.go).
//
// What is repeated here: that registration and the scheme. The manager adds
// its API types to client-go's global scheme, which the defaulter's own
// client lists local model caches with (when the configuration enables
// them); so does this process (KServe's serving.kserve.io types only: the
// other groups of its scheme are for its controllers). The pod mutator and
// the validators of other kinds are not served, so not registered.
//
// The defaulter reads its configuration, the ConfigMap
// inferenceservice-config in the namespace POD_NAMESPACE names (kserve when
// unset), from the cluster on every request, through controller-runtime's
// config.GetConfig(): KUBECONFIG must name the API server that holds it
// (the test's, where the suite creates the ConfigMap the release ships).
//
// It serves with the certificate the test gives (flags -tls-cert-file,
// -tls-private-key-file), prints one JSON line on stdout, {"url",
// "module", "version", "configuration", "serves"}, and serves until stdin
// is closed, so it never outlives the test that started it.
package main

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/kserve/kserve/pkg/apis/serving/v1alpha1"
	"github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	"github.com/kserve/kserve/pkg/constants"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
)

const module = "github.com/kserve/kserve"

// path is where controller-runtime serves the InferenceService defaulter,
// the path of the release's config/webhook/manifests.yaml.
const path = "/mutate-serving-kserve-io-v1beta1-inferenceservice"

var (
	certFile = flag.String("tls-cert-file", "", "PEM file of the serving certificate for 127.0.0.1 (the test makes it)")
	keyFile  = flag.String("tls-private-key-file", "", "PEM file of its private key")
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "webhook-kserve: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		return errors.New("-tls-cert-file and -tls-private-key-file are required")
	}
	kubeconfig := os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		return errors.New("KUBECONFIG is required: the defaulter reads its ConfigMap from the cluster on every request")
	}
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		return err
	}
	if os.Getenv("WEBHOOK_LOGS") == "" {
		discardLogs()
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	scheme := clientgoscheme.Scheme
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.AddToScheme, v1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	mgr, err := newManager(cfg, scheme)
	if err != nil {
		return err
	}
	if err := registerInferenceService(mgr); err != nil {
		return fmt.Errorf("webhook InferenceService: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.MaxBytesHandler(webhookMux(mgr), 3<<20), ReadHeaderTimeout: 10 * time.Second,
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
	ready, _ := json.Marshal(map[string]any{"url": "https://" + l.Addr().String(), "module": module, "version": version,
		"configuration": "ConfigMap " + constants.InferenceServiceConfigMapName + " in namespace " + constants.KServeNamespace + " of the test's API server, read on every request",
		"serves":        []string{path}})
	fmt.Println(string(ready))
	if err := srv.ServeTLS(l, "", ""); err != http.ErrServerClosed {
		return err
	}
	return nil
}
