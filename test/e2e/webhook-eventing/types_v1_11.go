//go:build !types1.0

package main

import (
	"knative.dev/pkg/webhook/resourcesemantics/conversion"

	"knative.dev/eventing/pkg/apis/eventing"
	eventingv1beta1 "knative.dev/eventing/pkg/apis/eventing/v1beta1"
	eventingv1beta2 "knative.dev/eventing/pkg/apis/eventing/v1beta2"
)

// From v1.11: EventType v1beta2, defaulted and converted through v1beta1.
func init() {
	types[eventingv1beta2.SchemeGroupVersion.WithKind("EventType")] = &eventingv1beta2.EventType{}
	conversions[eventingv1beta2.Kind("EventType")] = conversion.GroupKindConversion{
		DefinitionName: eventing.EventTypesResource.String(), HubVersion: eventingv1beta1.SchemeGroupVersion.Version,
		Zygotes: map[string]conversion.ConvertibleObject{
			eventingv1beta1.SchemeGroupVersion.Version: &eventingv1beta1.EventType{},
			eventingv1beta2.SchemeGroupVersion.Version: &eventingv1beta2.EventType{}}}
}
