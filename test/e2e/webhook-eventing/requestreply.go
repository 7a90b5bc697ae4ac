//go:build !norequestreply

package main

import eventingv1alpha1 "knative.dev/eventing/pkg/apis/eventing/v1alpha1"

// RequestReply is among cmd/webhook's defaulted types from v1.20 on (its
// CRD ships from v1.17): build with -tags norequestreply for v1.17 to
// v1.19.
func init() {
	types[eventingv1alpha1.SchemeGroupVersion.WithKind("RequestReply")] = &eventingv1alpha1.RequestReply{}
}
