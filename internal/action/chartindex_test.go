package action

import (
	"errors"
	"testing"
)

// Versions resolve as helm resolves --version against an index, and
// relative chart URLs against the repository.
func TestChartIndex(t *testing.T) {
	idx, err := parseChartIndex([]byte(`apiVersion: v1
entries:
  app:
    - {version: 1.2.0, urls: [app-1.2.0.tgz]}
    - {version: 2.0.0-rc.1, urls: [app-2.0.0-rc.1.tgz]}
    - {version: 1.10.1, urls: [https://cdn.example.com/app-1.10.1.tgz]}
    - {version: nightly, urls: [app-nightly.tgz]}
    - {version: 1.9.0, urls: [charts/app-1.9.0.tgz]}
`))
	if err != nil {
		t.Fatal(err)
	}
	for want, got := range map[string]string{"": "1.10.1", "1.2.0": "1.2.0", "~1.9": "1.9.0", "^1": "1.10.1", ">=2.0.0-0": "2.0.0-rc.1", "nightly": "nightly"} {
		v, err := idx.get("app", want)
		if err != nil || v.Version != got {
			t.Errorf("get(%q) = %+v, %v; want %s", want, v, err, got)
		}
	}
	if _, err := idx.get("app", "3.x"); err == nil {
		t.Error("a constraint no version satisfies resolved")
	}
	if _, err := idx.get("other", ""); !errors.Is(err, errNoChart) {
		t.Errorf("an unknown chart: %v", err)
	}
	if _, err := parseChartIndex([]byte("entries: {}\n")); err == nil {
		t.Error("a file without apiVersion read as an index")
	}
	for ref, want := range map[string]string{
		"app-1.2.0.tgz":                          "https://charts.example.com/stable/app-1.2.0.tgz?t=1",
		"charts/app-1.9.0.tgz":                   "https://charts.example.com/stable/charts/app-1.9.0.tgz?t=1",
		"https://cdn.example.com/app-1.10.1.tgz": "https://cdn.example.com/app-1.10.1.tgz",
	} {
		if got, err := chartURL("https://charts.example.com/stable?t=1", ref); err != nil || got != want {
			t.Errorf("chartURL(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
}
