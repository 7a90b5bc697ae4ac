//go:build injectdecoder

package main

import (
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	clonesetmutating "github.com/openkruise/kruise/pkg/webhook/cloneset/mutating"
	daemonsetmutating "github.com/openkruise/kruise/pkg/webhook/daemonset/mutating"
	statefulsetmutating "github.com/openkruise/kruise/pkg/webhook/statefulset/mutating"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// kruiseHandlers (before v1.7, controller-runtime before v0.15): each
// package's handler map holds the handler itself, keyed by its path, and
// the manager injects a decoder over its scheme, as here.
func kruiseHandlers(scheme *runtime.Scheme) (map[string]http.Handler, error) {
	decoder, err := admission.NewDecoder(scheme)
	if err != nil {
		return nil, err
	}
	out := map[string]http.Handler{}
	for _, m := range []map[string]admission.Handler{clonesetmutating.HandlerMap, statefulsetmutating.HandlerMap, daemonsetmutating.HandlerMap} {
		for path, h := range m {
			injector, ok := h.(admission.DecoderInjector)
			if !ok {
				return nil, fmt.Errorf("the handler of %s takes no decoder", path)
			}
			if err := injector.InjectDecoder(decoder); err != nil {
				return nil, err
			}
			wh := &admission.Webhook{Handler: h}
			if err := wh.InjectLogger(logr.Discard()); err != nil {
				return nil, err
			}
			out["/"+path] = wh
		}
	}
	return out, nil
}
