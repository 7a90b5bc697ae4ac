//go:build gokit

package main

import (
	"log/slog"
	"os"

	"github.com/go-kit/log"

	"github.com/prometheus-operator/prometheus-operator/pkg/admission"
)

// Before v0.76.0: a go-kit logger, which logs where the slog logger would
// (stderr with WEBHOOK_LOGS).
const configuration = "cmd/admission-webhook's defaults"

func newAdmission(_ *slog.Logger) *admission.Admission {
	if os.Getenv("WEBHOOK_LOGS") != "" {
		return admission.New(log.NewLogfmtLogger(log.NewSyncWriter(os.Stderr)))
	}
	return admission.New(log.NewNopLogger())
}
