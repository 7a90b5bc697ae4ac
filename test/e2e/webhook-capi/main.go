// Command webhook-capi serves Cluster API's admission webhooks from the
// release's own Go module (this module's go.mod pins it) over HTTPS on
// loopback, the way its three controllers serve them: a controller-runtime
// manager with the webhook types each controller's main.go registers
// (the core's, the kubeadm control plane's and the kubeadm bootstrap
// provider's, one process here), each set up by the release's own
// SetupWebhookWithManager, served from the manager's webhook mux.
//
// What is repeated here: the list of SetupWebhookWithManager calls and the
// schemes of the three main.go files (registration, never defaulting). The
// Cluster webhook reads the ClusterClass a managed topology names through
// the manager's cached client, as the core controller gives it: with
// KUBECONFIG set the manager's cache runs against that API server;
// without it, such a Cluster is refused (the ClusterClass cannot be read).
// Feature gates keep the release's defaults.
//
// It serves with the certificate the test gives (flags -tls-cert-file,
// -tls-private-key-file), prints one JSON line on stdout, {"url",
// "module", "version", "configuration", "conversion"}, and serves until
// stdin is closed.
package main

import (
	"context"
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

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

const module = "sigs.k8s.io/cluster-api"

var (
	certFile = flag.String("tls-cert-file", "", "PEM file of the serving certificate for 127.0.0.1 (the test makes it)")
	keyFile  = flag.String("tls-private-key-file", "", "PEM file of its private key")
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "webhook-capi: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		return errors.New("-tls-cert-file and -tls-private-key-file are required")
	}
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		return err
	}
	if os.Getenv("WEBHOOK_LOGS") == "" {
		ctrl.SetLogger(logr.Discard())
	}
	scheme := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme}, apiTypes...) {
		if err := add(scheme); err != nil {
			return err
		}
	}
	cfg := &rest.Config{Host: "https://127.0.0.1:1"} // never reached without KUBECONFIG
	cluster := "none (a Cluster with a managed topology is refused)"
	if kc := os.Getenv("KUBECONFIG"); kc != "" {
		if cfg, err = clientcmd.BuildConfigFromFlags("", kc); err != nil {
			return err
		}
		cluster = "the test's API server (ClusterClasses read from it)"
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(webhook.Options{Host: "127.0.0.1"}),
	})
	if err != nil {
		return err
	}
	if err := setupWebhooks(mgr); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if os.Getenv("KUBECONFIG") != "" {
		go func() { _ = mgr.GetCache().Start(ctx) }()
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.MaxBytesHandler(mgr.GetWebhookServer().WebhookMux(), 3<<20), ReadHeaderTimeout: 10 * time.Second,
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
	ready, _ := json.Marshal(map[string]string{"url": "https://" + l.Addr().String(), "module": module, "version": version,
		"configuration": "feature gates at the release's defaults; cluster: " + cluster, "conversion": "/convert"})
	fmt.Println(string(ready))
	if err := srv.ServeTLS(l, "", ""); err != http.ErrServerClosed {
		return err
	}
	return nil
}
