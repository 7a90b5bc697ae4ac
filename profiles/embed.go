// Package profiles holds the shipped operator profiles:
// <operator>/<version>.yaml and <operator>/index.yaml, generated from
// upstream CRDs by scripts/gen-profiles.sh (do not edit them by hand), and
// beside each its compiled form (.bin, operators.CompileFile), which the
// same script writes. The YAML is what people review; the binary embeds
// only the compiled forms, so that selecting a large profile costs no YAML
// parse (TestCompiledForms keeps the two equal).
package profiles

import "embed"

// FS is every shipped profile and index, compiled.
//
//go:embed */*.bin
var FS embed.FS
