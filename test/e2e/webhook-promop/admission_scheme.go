//go:build scheme

package main

import (
	"log/slog"

	"github.com/prometheus-operator/prometheus-operator/pkg/admission"
	"github.com/prometheus/common/model"
)

// v0.86.0 to v0.90.x: a name validation scheme, no parser options.
const configuration = "cmd/admission-webhook's defaults: --name-validation-scheme=legacy"

func newAdmission(l *slog.Logger) *admission.Admission {
	return admission.New(l, model.LegacyValidation)
}
