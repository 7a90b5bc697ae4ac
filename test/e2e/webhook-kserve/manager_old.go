//go:build oldmanager

package main

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
)

// newManager (before KServe v0.12, controller-runtime before v0.15): the
// same manager through the options of those releases, where the webhook
// server is a struct whose mux is a field.
func newManager(cfg *rest.Config, scheme *runtime.Scheme) (ctrl.Manager, error) {
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		MetricsBindAddress:     "0",
		HealthProbeBindAddress: "0",
		Host:                   "127.0.0.1",
	})
}

func webhookMux(mgr ctrl.Manager) http.Handler { return mgr.GetWebhookServer().WebhookMux }
