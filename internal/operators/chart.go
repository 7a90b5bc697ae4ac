package operators

import (
	"fmt"

	"golang.org/x/mod/semver"
)

// chartSchemes are the version schemes of the Helm charts that install a
// shipped operator, where they differ from the operator's own: a version
// of that shape given as a release is most likely the chart's.
var chartSchemes = map[string]struct {
	majors []string // semver majors of the chart's versions
	chart  string   // which chart, and what its versions install
}{
	"kyverno":             {[]string{"v2", "v3"}, "the kyverno chart (its 3.x versions install kyverno 1.10 and later)"},
	"prometheus-operator": {majorsFrom(1, 99), "the kube-prometheus-stack or prometheus-operator-crds chart (prometheus-operator releases are 0.x)"},
	"cloudnative-pg":      {[]string{"v0"}, "the cloudnative-pg chart (its 0.x versions install CloudNativePG 1.x)"},
}

func majorsFrom(a, b int) []string {
	var out []string
	for i := a; i <= b; i++ {
		out = append(out, fmt.Sprintf("v%d", i))
	}
	return out
}

// chartHint says, for a version of operator that has the shape of its
// chart's versions, that it looks like one; "" otherwise.
func chartHint(operator, version string) string {
	s, ok := chartSchemes[operator]
	if !ok {
		return ""
	}
	for _, m := range s.majors {
		if semver.Major(version) == m {
			return fmt.Sprintf("; %s looks like a Helm chart version of %s: give the %s release the chart installs (its appVersion)", version[1:], s.chart, operator)
		}
	}
	return ""
}
