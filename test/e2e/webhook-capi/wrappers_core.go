//go:build wrappers && !expwebhooks

package main

import coreadmission "sigs.k8s.io/cluster-api/webhooks"

// From v1.12 the core's wrappers export MachinePool's and the IPAM
// webhooks with the others.
type (
	machinePool    = coreadmission.MachinePool
	ipAddress      = coreadmission.IPAddress
	ipAddressClaim = coreadmission.IPAddressClaim
)
