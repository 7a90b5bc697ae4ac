//go:build !scheme && !slogonly && !gokit

package main

import (
	"log/slog"

	"github.com/prometheus-operator/prometheus-operator/pkg/admission"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
)

// From v0.91.0: a name validation scheme and PromQL parser options.
const configuration = "cmd/admission-webhook's defaults: --name-validation-scheme=legacy, no --promql-options"

func newAdmission(l *slog.Logger) *admission.Admission {
	return admission.New(l, model.LegacyValidation, parser.Options{})
}
