//go:build !types1.0 && !types1.11

package main

import (
	"knative.dev/pkg/webhook/resourcesemantics/conversion"

	"knative.dev/eventing/pkg/apis/eventing"
	eventingv1alpha1 "knative.dev/eventing/pkg/apis/eventing/v1alpha1"
	eventingv1beta1 "knative.dev/eventing/pkg/apis/eventing/v1beta1"
	eventingv1beta2 "knative.dev/eventing/pkg/apis/eventing/v1beta2"
	eventingv1beta3 "knative.dev/eventing/pkg/apis/eventing/v1beta3"
	sinksv1alpha1 "knative.dev/eventing/pkg/apis/sinks/v1alpha1"
)

// From v1.15: EventPolicy and JobSink defaulted; EventType converted to
// and from v1beta3 too.
func init() {
	types[eventingv1alpha1.SchemeGroupVersion.WithKind("EventPolicy")] = &eventingv1alpha1.EventPolicy{}
	types[sinksv1alpha1.SchemeGroupVersion.WithKind("JobSink")] = &sinksv1alpha1.JobSink{}
	conversions[eventingv1beta2.Kind("EventType")] = conversion.GroupKindConversion{
		DefinitionName: eventing.EventTypesResource.String(), HubVersion: eventingv1beta1.SchemeGroupVersion.Version,
		Zygotes: map[string]conversion.ConvertibleObject{
			eventingv1beta1.SchemeGroupVersion.Version: &eventingv1beta1.EventType{},
			eventingv1beta2.SchemeGroupVersion.Version: &eventingv1beta2.EventType{},
			eventingv1beta3.SchemeGroupVersion.Version: &eventingv1beta3.EventType{}}}
}
