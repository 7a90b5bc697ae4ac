//go:build legacydefaulter && nodatabase

package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// addDatabase: releases before v1.26 have no Database webhook (v1.24 has no
// Database kind).
func addDatabase(*runtime.Scheme, map[string]*admission.Webhook) {}
