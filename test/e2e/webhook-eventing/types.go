package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"knative.dev/pkg/webhook/resourcesemantics"
	"knative.dev/pkg/webhook/resourcesemantics/conversion"

	eventingv1 "knative.dev/eventing/pkg/apis/eventing/v1"
	eventingv1beta1 "knative.dev/eventing/pkg/apis/eventing/v1beta1"
	flowsv1 "knative.dev/eventing/pkg/apis/flows/v1"
	messagingv1 "knative.dev/eventing/pkg/apis/messaging/v1"
	"knative.dev/eventing/pkg/apis/sources"
	sourcesv1 "knative.dev/eventing/pkg/apis/sources/v1"
	sourcesv1beta2 "knative.dev/eventing/pkg/apis/sources/v1beta2"
)

// types is eventing's cmd/webhook list of the resources it defaults, and
// conversions the kinds its conversion webhook converts, each through its
// hub version. Here the lists of v1.0 to v1.10; the files types_v1_N.go add
// what cmd/webhook adds at v1.N. A release's build tag types1.N (the line
// where its lists last changed: types1.0, types1.11, types1.15, types1.17,
// types1.18; none from v1.20 on) leaves out the files of later lines.
var types = map[schema.GroupVersionKind]resourcesemantics.GenericCRD{
	eventingv1beta1.SchemeGroupVersion.WithKind("EventType"): &eventingv1beta1.EventType{},
	eventingv1.SchemeGroupVersion.WithKind("Broker"):         &eventingv1.Broker{},
	eventingv1.SchemeGroupVersion.WithKind("Trigger"):        &eventingv1.Trigger{},
	messagingv1.SchemeGroupVersion.WithKind("Channel"):       &messagingv1.Channel{},
	messagingv1.SchemeGroupVersion.WithKind("Subscription"):  &messagingv1.Subscription{},
	sourcesv1beta2.SchemeGroupVersion.WithKind("PingSource"): &sourcesv1beta2.PingSource{},
	sourcesv1.SchemeGroupVersion.WithKind("ApiServerSource"): &sourcesv1.ApiServerSource{},
	sourcesv1.SchemeGroupVersion.WithKind("PingSource"):      &sourcesv1.PingSource{},
	sourcesv1.SchemeGroupVersion.WithKind("SinkBinding"):     &sourcesv1.SinkBinding{},
	sourcesv1.SchemeGroupVersion.WithKind("ContainerSource"): &sourcesv1.ContainerSource{},
	flowsv1.SchemeGroupVersion.WithKind("Parallel"):          &flowsv1.Parallel{},
	flowsv1.SchemeGroupVersion.WithKind("Sequence"):          &flowsv1.Sequence{},
}

var conversions = map[schema.GroupKind]conversion.GroupKindConversion{
	sourcesv1.Kind("PingSource"): {DefinitionName: sources.PingSourceResource.String(), HubVersion: sourcesv1beta2.SchemeGroupVersion.Version,
		Zygotes: map[string]conversion.ConvertibleObject{
			sourcesv1beta2.SchemeGroupVersion.Version: &sourcesv1beta2.PingSource{},
			sourcesv1.SchemeGroupVersion.Version:      &sourcesv1.PingSource{}}},
}
