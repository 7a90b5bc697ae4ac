// Package profiles holds the shipped operator profiles:
// <operator>/<version>.yaml and <operator>/index.yaml. They are generated
// from upstream CRDs by scripts/gen-profiles.sh; do not edit them by hand.
package profiles

import "embed"

// FS is every shipped profile and index.
//
//go:embed */*.yaml
var FS embed.FS
