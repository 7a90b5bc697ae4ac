//go:build legacydefaulter && !nodatabase

package main

import (
	apiv1 "github.com/cloudnative-pg/cloudnative-pg/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// addDatabase serves the Database webhook (v1.26 and later): decode,
// encode and patch only.
func addDatabase(scheme *runtime.Scheme, m map[string]*admission.Webhook) {
	m["/mutate-postgresql-cnpg-io-v1-database"] = admission.WithCustomDefaulter(scheme, &apiv1.Database{}, nothing{})
}
