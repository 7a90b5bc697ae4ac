//go:build legacydefaulter

package main

import (
	"context"
	"fmt"

	apiv1 "github.com/cloudnative-pg/cloudnative-pg/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// webhooks are the operator's defaulting webhooks by path, with
// controller-runtime's CustomDefaulter (before v0.23), as CloudNativePG
// v1.24.4, v1.25.1 and later register them, in an internal package (go build
// -tags legacydefaulter; add nodatabase for releases before v1.26, which
// have no Database webhook).
func webhooks(scheme *runtime.Scheme) map[string]*admission.Webhook {
	m := map[string]*admission.Webhook{
		"/mutate-postgresql-cnpg-io-v1-cluster":         admission.WithCustomDefaulter(scheme, &apiv1.Cluster{}, clusterDefaulter{}),
		"/mutate-postgresql-cnpg-io-v1-backup":          admission.WithCustomDefaulter(scheme, &apiv1.Backup{}, nothing{}),
		"/mutate-postgresql-cnpg-io-v1-scheduledbackup": admission.WithCustomDefaulter(scheme, &apiv1.ScheduledBackup{}, nothing{}),
	}
	addDatabase(scheme, m)
	return m
}

type clusterDefaulter struct{}

func (clusterDefaulter) Default(_ context.Context, obj runtime.Object) error {
	c, ok := obj.(*apiv1.Cluster)
	if !ok {
		return fmt.Errorf("expected a Cluster, got %T", obj)
	}
	c.Default()
	return nil
}

// nothing is the operator's defaulter for kinds it has no defaults for.
type nothing struct{}

func (nothing) Default(context.Context, runtime.Object) error { return nil }
