//go:build slogonly

package main

import (
	"log/slog"

	"github.com/prometheus-operator/prometheus-operator/pkg/admission"
)

// v0.76.0 to v0.85.x: the logger only.
const configuration = "cmd/admission-webhook's defaults"

func newAdmission(l *slog.Logger) *admission.Admission {
	return admission.New(l)
}
