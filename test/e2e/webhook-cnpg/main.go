// Command webhook-cnpg serves CloudNativePG's mutating admission webhooks
// from the operator's own Go module (this module's go.mod pins the release)
// over HTTPS on loopback, the way the operator serves them: controller-runtime's
// admission.WithDefaulter around the operator's defaulters, at the paths its
// MutatingWebhookConfiguration (config/webhook/manifests.yaml) names.
//
// The operator's defaulters live in an internal package; they are one line
// each, repeated here: a Cluster gets (*apiv1.Cluster).Default(), Backups,
// ScheduledBackups and Databases nothing but controller-runtime's decode,
// encode and JSON patch round trip.
//
// The operator reads its configuration from its environment when the
// package loads (as the Deployment of its release manifest sets it:
// MONITORING_QUERIES_CONFIGMAP=cnpg-default-monitoring); so does this
// process. It serves with the certificate the test gives (flags
// -tls-cert-file, -tls-private-key-file), prints one JSON line on stdout,
// {"url", "module", "version", "configuration"}, and serves until stdin is
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
	"time"

	apiv1 "github.com/cloudnative-pg/cloudnative-pg/api/v1"
	"github.com/cloudnative-pg/cloudnative-pg/pkg/versions"
	"k8s.io/apimachinery/pkg/runtime"
)

const module = "github.com/cloudnative-pg/cloudnative-pg"

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "webhook-cnpg: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	scheme := runtime.NewScheme()
	if err := apiv1.AddToScheme(scheme); err != nil {
		return err
	}
	mux := http.NewServeMux()
	for path, h := range webhooks(scheme) {
		mux.Handle(path, h)
	}
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
	config := fmt.Sprintf("PostgreSQL image %s (the release's default)", versions.DefaultImageName)
	for _, k := range []string{"POSTGRES_IMAGE_NAME", "MONITORING_QUERIES_CONFIGMAP", "MONITORING_QUERIES_SECRET", "INCLUDE_PLUGINS"} {
		if v := os.Getenv(k); v != "" {
			config += ", " + k + "=" + v
		}
	}
	ready, _ := json.Marshal(map[string]string{"url": "https://" + l.Addr().String(), "module": module, "version": version, "configuration": config})
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
