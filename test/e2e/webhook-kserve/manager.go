//go:build !oldmanager

package main

import (
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// newManager (controller-runtime v0.16 on): no metrics or health
// listener; the webhook server on loopback, its mux served by run.
func newManager(cfg *rest.Config, scheme *runtime.Scheme) (ctrl.Manager, error) {
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(webhook.Options{Host: "127.0.0.1"}),
	})
}

func webhookMux(mgr ctrl.Manager) http.Handler { return mgr.GetWebhookServer().WebhookMux() }

func discardLogs() { ctrl.SetLogger(logr.Discard()) }
