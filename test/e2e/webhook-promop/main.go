// Command webhook-promop serves prometheus-operator's admission webhook
// from the operator's own Go module (this module's go.mod pins the release)
// over HTTPS on loopback: the handlers of its pkg/admission, registered on a
// mux as its cmd/admission-webhook does, with that command's default
// options (the legacy name validation scheme, no PromQL parser option).
// The constructor's signature changed over releases: a build tag picks the
// release's (admission_*.go), and go.vX.mod pins the release.
//
// It serves with the certificate the test gives (flags -tls-cert-file,
// -tls-private-key-file), prints one JSON line on stdout, {"url", "module",
// "version", "configuration"}, and serves until stdin is closed, so it
// never outlives the test that started it.
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"
)

const module = "github.com/prometheus-operator/prometheus-operator"

var (
	certFile = flag.String("tls-cert-file", "", "PEM file of the serving certificate for 127.0.0.1 (the test makes it)")
	keyFile  = flag.String("tls-private-key-file", "", "PEM file of its private key")
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "webhook-promop: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		return fmt.Errorf("-tls-cert-file and -tls-private-key-file are required")
	}
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		return err
	}
	var out io.Writer = io.Discard
	if os.Getenv("WEBHOOK_LOGS") != "" {
		out = os.Stderr
	}
	mux := http.NewServeMux()
	newAdmission(slog.New(slog.NewTextHandler(out, nil))).Register(mux)
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
	ready, _ := json.Marshal(map[string]string{"url": "https://" + l.Addr().String(), "module": module, "version": version,
		"configuration": configuration})
	fmt.Println(string(ready))
	if err := srv.ServeTLS(l, "", ""); err != http.ErrServerClosed {
		return err
	}
	return nil
}
