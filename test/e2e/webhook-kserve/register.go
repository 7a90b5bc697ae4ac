//go:build !typedefault

package main

import (
	"github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// registerInferenceService (v0.14 on): the defaulter and the validator are
// their own types, given to the builder.
func registerInferenceService(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr).
		For(&v1beta1.InferenceService{}).
		WithDefaulter(&v1beta1.InferenceServiceDefaulter{}).
		WithValidator(&v1beta1.InferenceServiceValidator{}).
		Complete()
}
