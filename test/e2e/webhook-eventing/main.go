// Command webhook-eventing serves Knative Eventing's core defaulting
// admission webhook from the release's own Go module (this module's go.mod
// pins it) over HTTPS on loopback: knative.dev/pkg's defaulting admission
// controller with the types and the configuration stores of eventing's
// cmd/webhook, its Admit called for each AdmissionReview the way
// knative.dev/pkg's handler calls it (as test/e2e/webhook-tekton does for
// Tekton Pipelines).
//
// What is repeated here: the list of defaulted types and of converted kinds
// (variables and arguments of eventing's main package), how its context
// function stacks the stores, and the few lines of knative.dev/pkg's
// unexported HTTP handler. The reconcilers that write the certificate and
// the webhook configuration do not run; the ready line gives the rules
// knative.dev/pkg's reconciler would write (one per type, by the same
// pluralization), and the test registers them.
//
// Configuration: each ConfigMap eventing's stores watch, as the release's
// config/core/configmaps ships it (OPERATOR_MODULE_DIR is the module's
// directory), or empty where the release ships none, so its built-in
// defaults apply. It serves with the certificate the test gives (flags
// -tls-cert-file, -tls-private-key-file), prints one JSON line on stdout,
// {"url", "module", "version", "configuration", "paths", "rules",
// "conversion"} (the conversion webhook's path, which the CRDs name), and
// serves until stdin is closed.
package main

import (
	"bufio"
	"bytes"
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
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gobuffalo/flect"
	"go.uber.org/zap"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apixv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"knative.dev/pkg/apis"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/injection"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"
	"knative.dev/pkg/webhook"
	"knative.dev/pkg/webhook/resourcesemantics/conversion"
	"knative.dev/pkg/webhook/resourcesemantics/defaulting"
	"sigs.k8s.io/yaml"

	defaultconfig "knative.dev/eventing/pkg/apis/config"
	"knative.dev/eventing/pkg/apis/feature"
	channeldefaultconfig "knative.dev/eventing/pkg/apis/messaging/config"
)

const (
	module = "knative.dev/eventing"
	// name and path are what eventing's cmd/webhook gives the defaulting
	// controller.
	name = "webhook.eventing.knative.dev"
	path = "/defaulting"
)

var (
	certFile = flag.String("tls-cert-file", "", "PEM file of the serving certificate for 127.0.0.1 (the test makes it)")
	keyFile  = flag.String("tls-private-key-file", "", "PEM file of its private key")
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "webhook-eventing: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	flag.Parse()
	if *certFile == "" || *keyFile == "" {
		return errors.New("-tls-cert-file and -tls-private-key-file are required")
	}
	if os.Getenv(system.NamespaceEnvKey) == "" {
		if err := os.Setenv(system.NamespaceEnvKey, "knative-eventing"); err != nil {
			return err
		}
	}
	zl := zap.NewNop()
	if os.Getenv("WEBHOOK_LOGS") != "" {
		zl, _ = zap.NewDevelopment()
	}
	logger := zl.Sugar()
	ctx := logging.WithLogger(context.Background(), logger)
	ctx = webhook.WithOptions(ctx, webhook.Options{ServiceName: "eventing-webhook", Port: 8443, SecretName: "eventing-webhook-certs"})
	// The controller's clients and informers, never started nor called:
	// Admit reads neither.
	ctx, _ = injection.Default.SetupInformers(ctx, &rest.Config{Host: "https://127.0.0.1:1"})

	cfg, err := releaseConfig(os.Getenv("OPERATOR_MODULE_DIR"))
	if err != nil {
		return err
	}
	// The stores and the context function of cmd/webhook's defaulting
	// and conversion controllers.
	store := defaultconfig.NewStore(logger.Named("config-store"))
	store.WatchConfigs(cfg)
	channelStore := channeldefaultconfig.NewStore(logger.Named("channel-config-store"))
	channelStore.WatchConfigs(cfg)
	featureStore := feature.NewStore(logger.Named("feature-config-store"))
	featureStore.WatchConfigs(cfg)
	ctxFunc := func(ctx context.Context) context.Context {
		return featureStore.ToContext(channelStore.ToContext(store.ToContext(ctx)))
	}
	impl := defaulting.NewAdmissionController(ctx, name, path, types, ctxFunc, true)
	ac, ok := impl.Reconciler.(webhook.AdmissionController)
	if !ok {
		return errors.New("the defaulting controller is no admission controller")
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

	// The conversion webhook, which the CRDs of PingSource and EventType
	// name: objects of their other versions are stored through it.
	conv := conversion.NewConversionController(ctx, "/resource-conversion", conversions, ctxFunc)
	cc, ok := conv.Reconciler.(webhook.ConversionController)
	if !ok {
		return errors.New("the conversion controller is no conversion controller")
	}
	mux.HandleFunc(cc.Path(), func(w http.ResponseWriter, r *http.Request) {
		var review apixv1.ConversionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, fmt.Sprint("could not decode body: ", err), http.StatusBadRequest)
			return
		}
		rctx := logging.WithLogger(r.Context(), logger)
		out := apixv1.ConversionReview{TypeMeta: review.TypeMeta, Response: cc.Convert(rctx, review.Request)}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})

	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
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
	ready, _ := json.Marshal(map[string]any{"url": "https://" + l.Addr().String(), "module": module,
		"version": version, "configuration": cfg.describe(), "paths": map[string]string{name: ac.Path()}, "conversion": cc.Path(),
		"rules": map[string][]admissionregistrationv1.RuleWithOperations{name: rules()}})
	fmt.Println(string(ready))
	if err := srv.ServeTLS(l, "", ""); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// rules are the rules knative.dev/pkg's defaulting reconciler writes into
// the webhook configuration: one per type, its lower-cased plural and
// status, on create and update.
func rules() []admissionregistrationv1.RuleWithOperations {
	var out []admissionregistrationv1.RuleWithOperations
	for gvk := range types {
		plural := strings.ToLower(flect.Pluralize(gvk.Kind))
		out = append(out, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{gvk.Group}, APIVersions: []string{gvk.Version},
				Resources: []string{plural, plural + "/status"}},
		})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Rule, out[j].Rule
		return a.APIGroups[0]+"/"+a.APIVersions[0]+"/"+a.Resources[0] < b.APIGroups[0]+"/"+b.APIVersions[0]+"/"+b.Resources[0]
	})
	return out
}

// staticConfig is a configmap.Watcher over the ConfigMaps the release ships
// in config/core/configmaps: a watched name it does not ship is an empty
// ConfigMap.
type staticConfig struct {
	shipped map[string]*corev1.ConfigMap
	watched []string
}

func (s *staticConfig) Watch(name string, observers ...configmap.Observer) {
	cm := s.shipped[name]
	if cm == nil {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: system.Namespace()}}
	}
	s.watched = append(s.watched, name)
	for _, o := range observers {
		o(cm)
	}
}

func (s *staticConfig) Start(<-chan struct{}) error { return nil }

func (s *staticConfig) describe() string {
	var shipped, empty []string
	for _, n := range s.watched {
		if s.shipped[n] != nil {
			shipped = append(shipped, n)
		} else {
			empty = append(empty, n)
		}
	}
	slices.Sort(shipped)
	slices.Sort(empty)
	out := "the release's config/core/configmaps ConfigMaps " + strings.Join(shipped, ", ")
	if len(empty) > 0 {
		out += "; none shipped for " + strings.Join(empty, ", ") + " (built-in defaults)"
	}
	return out
}

// releaseConfig reads the ConfigMaps of the release's
// config/core/configmaps/*.yaml.
func releaseConfig(dir string) (*staticConfig, error) {
	if dir == "" {
		return nil, errors.New("OPERATOR_MODULE_DIR is not set: the module's config/core/configmaps are the configuration")
	}
	files, err := filepath.Glob(filepath.Join(dir, "config", "core", "configmaps", "*.yaml"))
	if err != nil {
		return nil, err
	}
	s := &staticConfig{shipped: map[string]*corev1.ConfigMap{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := dec.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(doc, &cm); err != nil || cm.Kind != "ConfigMap" {
				continue
			}
			cm.Namespace = system.Namespace()
			s.shipped[cm.Name] = &cm
		}
	}
	return s, nil
}
