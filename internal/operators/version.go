package operators

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// CanonicalVersion turns "2.5.0" or "v2.5.0" into "v2.5.0". Only full
// MAJOR.MINOR.PATCH releases are accepted: defaults differ at patch level.
func CanonicalVersion(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("version is empty")
	}
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	if !semver.IsValid(v) || strings.Count(strings.SplitN(strings.SplitN(v, "-", 2)[0], "+", 2)[0], ".") != 2 {
		return "", fmt.Errorf("version %q is not a release version like 2.5.0 or v2.5.0", strings.TrimPrefix(v, "v"))
	}
	return semver.Canonical(v), nil
}

// CompareVersions compares canonical versions.
func CompareVersions(a, b string) int { return semver.Compare(a, b) }
