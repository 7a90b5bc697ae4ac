//go:build !types1.0 && !types1.11 && !types1.15 && !types1.17 && !types1.18

package main

import eventingv1alpha1 "knative.dev/eventing/pkg/apis/eventing/v1alpha1"

// From v1.20: RequestReply (its CRD ships from v1.17).
func init() {
	types[eventingv1alpha1.SchemeGroupVersion.WithKind("RequestReply")] = &eventingv1alpha1.RequestReply{}
}
