//go:build !types1.0 && !types1.11 && !types1.15 && !types1.17

package main

import eventingv1alpha1 "knative.dev/eventing/pkg/apis/eventing/v1alpha1"

// From v1.18: EventTransform.
func init() {
	types[eventingv1alpha1.SchemeGroupVersion.WithKind("EventTransform")] = &eventingv1alpha1.EventTransform{}
}
