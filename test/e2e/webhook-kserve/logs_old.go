//go:build oldmanager && !logr0

package main

import (
	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// discardLogs: controller-runtime before v0.15 cannot take logr's Discard
// (its sink is nil there), so controller-runtime's own null sink.
func discardLogs() { ctrl.SetLogger(logr.New(ctrllog.NullLogSink{})) }
