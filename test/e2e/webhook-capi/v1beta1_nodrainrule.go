//go:build v1beta1 && nodrainrule

package main

// Before v1.9 there is no MachineDrainRule (go build -tags
// v1beta1,expaddons,nodrainrule).
var drainRuleHooks []hook
