//go:build !injectdecoder

package main

import (
	"net/http"

	clonesetmutating "github.com/openkruise/kruise/pkg/webhook/cloneset/mutating"
	daemonsetmutating "github.com/openkruise/kruise/pkg/webhook/daemonset/mutating"
	statefulsetmutating "github.com/openkruise/kruise/pkg/webhook/statefulset/mutating"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// kruiseHandlers (v1.7 on): each package's handler map holds a getter that
// builds the handler from the manager, with a decoder over its scheme;
// the handler is built here the same way, at the map's path.
func kruiseHandlers(scheme *runtime.Scheme) (map[string]http.Handler, error) {
	decoder := admission.NewDecoder(scheme)
	return map[string]http.Handler{
		pathOf(clonesetmutating.HandlerGetterMap):    &admission.Webhook{Handler: &clonesetmutating.CloneSetCreateUpdateHandler{Decoder: decoder}},
		pathOf(statefulsetmutating.HandlerGetterMap): &admission.Webhook{Handler: &statefulsetmutating.StatefulSetCreateUpdateHandler{Decoder: decoder}},
		pathOf(daemonsetmutating.HandlerGetterMap):   &admission.Webhook{Handler: &daemonsetmutating.DaemonSetCreateUpdateHandler{Decoder: decoder}},
	}, nil
}

// pathOf is the path of the one handler of a webhook package's handler map
// (its key is the path without the leading slash). It imports no more than
// the handlers' packages: go mod tidy reads every build tag's imports, and
// the release's module must hold them all.
func pathOf[V any](m map[string]V) string {
	for p := range m {
		return "/" + p
	}
	return ""
}
