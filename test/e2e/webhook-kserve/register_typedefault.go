//go:build typedefault

package main

import (
	"github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// registerInferenceService (before v0.14, controller-runtime v0.16): the
// InferenceService type itself defaults and validates (Default(),
// ValidateCreate()), and the builder registers both from it.
func registerInferenceService(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr).
		For(&v1beta1.InferenceService{}).
		Complete()
}
