//go:build v1beta1 && !expaddons

package main

import (
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta1"
	coreadmission "sigs.k8s.io/cluster-api/webhooks"
)

// v1.10: the ClusterResourceSet API in api/addons/v1beta1, its webhooks
// exported with the core's.
var (
	addonsAddToScheme = addonsv1.AddToScheme
	addonsHooks       = []hook{
		{"ClusterResourceSet", &coreadmission.ClusterResourceSet{}},
		{"ClusterResourceSetBinding", &coreadmission.ClusterResourceSetBinding{}},
	}
)
