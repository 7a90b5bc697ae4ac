//go:build apidefaulter && !noscheme

package main

import (
	apiv1 "github.com/cloudnative-pg/cloudnative-pg/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// webhooks are the operator's defaulting webhooks by path as CloudNativePG
// v1.20 to v1.25.0 register them (go build -tags apidefaulter): the API types
// are their own defaulters (webhook.Defaulter, (*Cluster).Default() and
// the empty ones of Backup and ScheduledBackup), served by
// controller-runtime's DefaultingWebhookFor (removed in v0.20).
func webhooks(scheme *runtime.Scheme) map[string]*admission.Webhook {
	return map[string]*admission.Webhook{
		"/mutate-postgresql-cnpg-io-v1-cluster":         admission.DefaultingWebhookFor(scheme, &apiv1.Cluster{}),
		"/mutate-postgresql-cnpg-io-v1-backup":          admission.DefaultingWebhookFor(scheme, &apiv1.Backup{}),
		"/mutate-postgresql-cnpg-io-v1-scheduledbackup": admission.DefaultingWebhookFor(scheme, &apiv1.ScheduledBackup{}),
	}
}
