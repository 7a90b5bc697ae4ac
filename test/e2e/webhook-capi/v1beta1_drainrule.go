//go:build v1beta1 && !nodrainrule

package main

import coreadmission "sigs.k8s.io/cluster-api/webhooks"

// MachineDrainRule's webhook, from v1.9.
var drainRuleHooks = []hook{{"MachineDrainRule", &coreadmission.MachineDrainRule{}}}
