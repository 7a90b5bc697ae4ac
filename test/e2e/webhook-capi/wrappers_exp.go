//go:build wrappers && expwebhooks

package main

import (
	expipamwebhooks "sigs.k8s.io/cluster-api/exp/ipam/webhooks"
	expwebhooks "sigs.k8s.io/cluster-api/exp/webhooks"
)

// Before v1.12 MachinePool's webhook is exported from exp/webhooks and the
// IPAM ones from exp/ipam/webhooks (go build -tags wrappers,expwebhooks),
// as the core's main.go registers them.
type (
	machinePool    = expwebhooks.MachinePool
	ipAddress      = expipamwebhooks.IPAddress
	ipAddressClaim = expipamwebhooks.IPAddressClaim
)
