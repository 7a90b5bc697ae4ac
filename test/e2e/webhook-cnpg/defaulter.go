//go:build !legacydefaulter && !apidefaulter

package main

import (
	"context"

	apiv1 "github.com/cloudnative-pg/cloudnative-pg/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// webhooks are the operator's defaulting webhooks by path, with
// controller-runtime's generic defaulter (v0.23 and later), as CloudNativePG
// v1.29 and later register them.
func webhooks(scheme *runtime.Scheme) map[string]*admission.Webhook {
	return map[string]*admission.Webhook{
		"/mutate-postgresql-cnpg-io-v1-cluster":         admission.WithDefaulter[*apiv1.Cluster](scheme, clusterDefaulter{}),
		"/mutate-postgresql-cnpg-io-v1-backup":          admission.WithDefaulter[*apiv1.Backup](scheme, nothing[*apiv1.Backup]{}),
		"/mutate-postgresql-cnpg-io-v1-scheduledbackup": admission.WithDefaulter[*apiv1.ScheduledBackup](scheme, nothing[*apiv1.ScheduledBackup]{}),
		"/mutate-postgresql-cnpg-io-v1-database":        admission.WithDefaulter[*apiv1.Database](scheme, nothing[*apiv1.Database]{}),
	}
}

type clusterDefaulter struct{}

func (clusterDefaulter) Default(_ context.Context, c *apiv1.Cluster) error {
	c.Default()
	return nil
}

// nothing is the operator's defaulter for kinds it has no defaults for.
type nothing[T runtime.Object] struct{}

func (nothing[T]) Default(context.Context, T) error { return nil }
