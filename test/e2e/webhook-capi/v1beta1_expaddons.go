//go:build v1beta1 && expaddons

package main

import (
	addonsv1 "sigs.k8s.io/cluster-api/exp/addons/api/v1beta1"
	addonswebhooks "sigs.k8s.io/cluster-api/exp/addons/webhooks"
)

// Before v1.10 the ClusterResourceSet API and its webhooks are under
// exp/addons (go build -tags v1beta1,expaddons).
var (
	addonsAddToScheme = addonsv1.AddToScheme
	addonsHooks       = []hook{
		{"ClusterResourceSet", &addonswebhooks.ClusterResourceSet{}},
		{"ClusterResourceSetBinding", &addonswebhooks.ClusterResourceSetBinding{}},
	}
)
