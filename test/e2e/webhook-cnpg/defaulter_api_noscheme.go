//go:build apidefaulter && noscheme

package main

import (
	apiv1 "github.com/cloudnative-pg/cloudnative-pg/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// webhooks of CloudNativePG v1.20.0 (go build -tags apidefaulter,noscheme):
// as defaulter_api.go, on controller-runtime v0.14, whose
// DefaultingWebhookFor takes no scheme: the webhook server injects it (and
// with it the decoder) when a webhook is registered, so it is injected here.
func webhooks(scheme *runtime.Scheme) map[string]*admission.Webhook {
	out := map[string]*admission.Webhook{
		"/mutate-postgresql-cnpg-io-v1-cluster":         admission.DefaultingWebhookFor(&apiv1.Cluster{}),
		"/mutate-postgresql-cnpg-io-v1-backup":          admission.DefaultingWebhookFor(&apiv1.Backup{}),
		"/mutate-postgresql-cnpg-io-v1-scheduledbackup": admission.DefaultingWebhookFor(&apiv1.ScheduledBackup{}),
	}
	for _, w := range out {
		if err := w.InjectScheme(scheme); err != nil {
			panic(err)
		}
	}
	return out
}
