//go:build oldmanager && logr0

package main

import (
	ctrl "sigs.k8s.io/controller-runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// discardLogs (before KServe v0.10, controller-runtime v0.10 and older):
// logr before v1 has an interface for a logger, and controller-runtime a
// null one.
func discardLogs() { ctrl.SetLogger(ctrllog.NullLogger{}) }
