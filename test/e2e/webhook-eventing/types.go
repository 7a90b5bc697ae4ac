package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"knative.dev/pkg/webhook/resourcesemantics"
	"knative.dev/pkg/webhook/resourcesemantics/conversion"

	"knative.dev/eventing/pkg/apis/eventing"
	eventingv1 "knative.dev/eventing/pkg/apis/eventing/v1"
	eventingv1alpha1 "knative.dev/eventing/pkg/apis/eventing/v1alpha1"
	eventingv1beta1 "knative.dev/eventing/pkg/apis/eventing/v1beta1"
	eventingv1beta2 "knative.dev/eventing/pkg/apis/eventing/v1beta2"
	eventingv1beta3 "knative.dev/eventing/pkg/apis/eventing/v1beta3"
	flowsv1 "knative.dev/eventing/pkg/apis/flows/v1"
	messagingv1 "knative.dev/eventing/pkg/apis/messaging/v1"
	sinksv1alpha1 "knative.dev/eventing/pkg/apis/sinks/v1alpha1"
	"knative.dev/eventing/pkg/apis/sources"
	sourcesv1 "knative.dev/eventing/pkg/apis/sources/v1"
	sourcesv1alpha1 "knative.dev/eventing/pkg/apis/sources/v1alpha1"
	sourcesv1beta2 "knative.dev/eventing/pkg/apis/sources/v1beta2"
)

// types is eventing's cmd/webhook list of the resources it defaults.
var types = map[schema.GroupVersionKind]resourcesemantics.GenericCRD{
	eventingv1alpha1.SchemeGroupVersion.WithKind("EventPolicy"):      &eventingv1alpha1.EventPolicy{},
	eventingv1alpha1.SchemeGroupVersion.WithKind("EventTransform"):   &eventingv1alpha1.EventTransform{},
	eventingv1beta1.SchemeGroupVersion.WithKind("EventType"):         &eventingv1beta1.EventType{},
	eventingv1beta2.SchemeGroupVersion.WithKind("EventType"):         &eventingv1beta2.EventType{},
	eventingv1.SchemeGroupVersion.WithKind("Broker"):                 &eventingv1.Broker{},
	eventingv1.SchemeGroupVersion.WithKind("Trigger"):                &eventingv1.Trigger{},
	messagingv1.SchemeGroupVersion.WithKind("Channel"):               &messagingv1.Channel{},
	messagingv1.SchemeGroupVersion.WithKind("Subscription"):          &messagingv1.Subscription{},
	sourcesv1alpha1.SchemeGroupVersion.WithKind("IntegrationSource"): &sourcesv1alpha1.IntegrationSource{},
	sourcesv1beta2.SchemeGroupVersion.WithKind("PingSource"):         &sourcesv1beta2.PingSource{},
	sourcesv1.SchemeGroupVersion.WithKind("ApiServerSource"):         &sourcesv1.ApiServerSource{},
	sourcesv1.SchemeGroupVersion.WithKind("PingSource"):              &sourcesv1.PingSource{},
	sourcesv1.SchemeGroupVersion.WithKind("SinkBinding"):             &sourcesv1.SinkBinding{},
	sourcesv1.SchemeGroupVersion.WithKind("ContainerSource"):         &sourcesv1.ContainerSource{},
	sinksv1alpha1.SchemeGroupVersion.WithKind("JobSink"):             &sinksv1alpha1.JobSink{},
	sinksv1alpha1.SchemeGroupVersion.WithKind("IntegrationSink"):     &sinksv1alpha1.IntegrationSink{},
	flowsv1.SchemeGroupVersion.WithKind("Parallel"):                  &flowsv1.Parallel{},
	flowsv1.SchemeGroupVersion.WithKind("Sequence"):                  &flowsv1.Sequence{},
}

// conversions is eventing's cmd/webhook list of the kinds its conversion
// webhook converts, each through its hub version.
var conversions = map[schema.GroupKind]conversion.GroupKindConversion{
	sourcesv1.Kind("PingSource"): {DefinitionName: sources.PingSourceResource.String(), HubVersion: sourcesv1beta2.SchemeGroupVersion.Version,
		Zygotes: map[string]conversion.ConvertibleObject{
			sourcesv1beta2.SchemeGroupVersion.Version: &sourcesv1beta2.PingSource{},
			sourcesv1.SchemeGroupVersion.Version:      &sourcesv1.PingSource{}}},
	eventingv1beta2.Kind("EventType"): {DefinitionName: eventing.EventTypesResource.String(), HubVersion: eventingv1beta1.SchemeGroupVersion.Version,
		Zygotes: map[string]conversion.ConvertibleObject{
			eventingv1beta1.SchemeGroupVersion.Version: &eventingv1beta1.EventType{},
			eventingv1beta2.SchemeGroupVersion.Version: &eventingv1beta2.EventType{},
			eventingv1beta3.SchemeGroupVersion.Version: &eventingv1beta3.EventType{}}},
}
