//go:build !types1.0 && !types1.11 && !types1.15

package main

import (
	sinksv1alpha1 "knative.dev/eventing/pkg/apis/sinks/v1alpha1"
	sourcesv1alpha1 "knative.dev/eventing/pkg/apis/sources/v1alpha1"
)

// From v1.17: IntegrationSource and IntegrationSink.
func init() {
	types[sourcesv1alpha1.SchemeGroupVersion.WithKind("IntegrationSource")] = &sourcesv1alpha1.IntegrationSource{}
	types[sinksv1alpha1.SchemeGroupVersion.WithKind("IntegrationSink")] = &sinksv1alpha1.IntegrationSink{}
}
