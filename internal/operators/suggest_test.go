package operators

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	known := []string{"cert-manager", "external-secrets", "gateway-api", "gateway-api-experimental", "keda", "kyverno"}
	for name, want := range map[string][]string{
		"externalsecrets":  {"external-secrets"},
		"External_Secrets": {"external-secrets"},
		"cert-manger":      {"cert-manager"},
		"gateway":          {"gateway-api", "gateway-api-experimental"},
		"kedaa":            {"keda"},
		"nonsense":         nil,
		"ke":               nil,
	} {
		if got := Suggest(name, known); !slices.Equal(got, want) {
			t.Errorf("Suggest(%q) = %v, want %v", name, got, want)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance = %d, want 3", d)
	}
}
