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
// process. It prints one JSON line on stdout, {"url", "caPEM", "module",
// "version", "configuration"}, and serves until stdin is closed, so it
// never outlives the test that started it.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
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
	cert, caPEM, err := selfSigned()
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
	ready, _ := json.Marshal(map[string]string{"url": "https://" + l.Addr().String(), "caPEM": string(caPEM), "module": module, "version": version, "configuration": config})
	fmt.Println(string(ready))
	if err := srv.ServeTLS(l, "", ""); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// selfSigned makes a CA and a serving certificate for 127.0.0.1.
func selfSigned() (tls.Certificate, []byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook-cnpg CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}
