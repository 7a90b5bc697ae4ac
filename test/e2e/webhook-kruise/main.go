// Command webhook-kruise serves OpenKruise's mutating admission webhooks for
// its workloads' pod templates from the operator's own Go module (this
// module's go.mod pins the release) over HTTPS on loopback, the way the
// operator serves them: controller-runtime's admission.Webhook around the
// operator's own handlers (CloneSet, Advanced StatefulSet, Advanced
// DaemonSet), each at the path its handler map names (the map's key: the
// release's own, v1alpha1 in DaemonSet's before v1.9), which is the path its
// MutatingWebhookConfiguration (config/webhook/manifests.yaml) gives.
//
// What is repeated here: the handlers' construction (a decoder over the
// operator's scheme, as their handler maps build it from the manager, or
// before v1.7 as the manager injects it into the map's handlers:
// handlers_*.go, build tag injectdecoder) and
// the feature-gate setup of the operator's main: the gates of
// KRUISE_FEATURE_GATES (the manager's --feature-gates, for example
// TemplateNoDefaults=true), then features.SetDefaultFeatureGates().
//
// It serves with the certificate the test gives (flags -tls-cert-file,
// -tls-private-key-file), prints one JSON line on stdout, {"url", "module",
// "version", "configuration", "serves"} (the paths it serves: the other
// webhooks of the manifest are not registered), and serves until stdin is
// closed, so it never outlives the test that started it.
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sort"
	"time"

	kruiseapis "github.com/openkruise/kruise/apis"
	"github.com/openkruise/kruise/pkg/features"
	utilfeature "github.com/openkruise/kruise/pkg/util/feature"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

const module = "github.com/openkruise/kruise"

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "webhook-kruise: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	gates := os.Getenv("KRUISE_FEATURE_GATES")
	if gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(gates); err != nil {
			return fmt.Errorf("KRUISE_FEATURE_GATES: %v", err)
		}
	}
	features.SetDefaultFeatureGates()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := kruiseapis.AddToScheme(scheme); err != nil {
		return err
	}
	handlers, err := kruiseHandlers(scheme)
	if err != nil {
		return err
	}
	if len(handlers) != 3 {
		return fmt.Errorf("the handler maps name %d paths for 3 handlers", len(handlers))
	}
	mux := http.NewServeMux()
	var serves []string
	for path, h := range handlers {
		mux.Handle(path, h)
		serves = append(serves, path)
	}
	sort.Strings(serves)
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
	config := "feature gates: the release's defaults"
	if gates != "" {
		config = "feature gates: " + gates
	}
	config += fmt.Sprintf(" (TemplateNoDefaults %v)", utilfeature.DefaultFeatureGate.Enabled(features.TemplateNoDefaults))
	ready, _ := json.Marshal(map[string]any{"url": "https://" + l.Addr().String(), "module": module, "version": version,
		"configuration": config, "serves": serves})
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
