package opdocs

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

const acmeProfile = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: v1.0.0
resources:
  - group: acme.io
    version: v1
    kind: Thing
    defaults:
      - path: .spec.mode
        type: string
        value: Slow
`

const acmeIndex = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorIndex
operator: acme
releases:
  - {version: v1.0.0, profile: v1.0.0}
  - {version: v1.1.0, profile: v1.0.0}
webhooks:
  - name: mthing.acme.io
    from: v1.1.0
    to: v1.1.0
    file: config/webhook/manifests.yaml
    rules: [{apiGroups: [acme.io], apiVersions: [v1], resources: [things], operations: [CREATE, UPDATE]}]
`

// A page names the webhooks the index records and says that what they
// write is not filled when no profile has a mutation rule, and how many
// fields are filled when one has.
func TestWebhookSection(t *testing.T) {
	for _, c := range []struct {
		profile string
		want    []string
	}{
		{acmeProfile, []string{
			"## Mutating webhooks",
			"**Not covered:** what these webhooks write.",
			"| `mthing.acme.io` | v1.1.0 | `acme.io/v1 things` on CREATE, UPDATE |",
		}},
		{acmeProfile + "    mutations:\n      - path: .spec.tier\n        value: gold\n", []string{
			"The newest profile fills 1 field(s) these webhooks write",
		}},
		// Mutations in an older profile only (Knative's 1.15.2): named.
		{acmeProfile + "    mutations:\n      - path: .spec.tier\n        value: gold\n", []string{
			"the fields these webhooks write that the profile(s) of v1.0.0 fill",
			"what these webhooks write in every other release",
		}},
	} {
		fs := fstest.MapFS{
			"acme/v1.0.0.yaml": {Data: []byte(c.profile)},
			"acme/index.yaml":  {Data: []byte(acmeIndex)},
		}
		if strings.Contains(c.want[0], "profile(s) of v1.0.0") {
			fs["acme/v1.1.0.yaml"] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(acmeProfile, "v1.0.0", "v1.1.0"))}
			fs["acme/index.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(acmeIndex, "{version: v1.1.0, profile: v1.0.0}", "{version: v1.1.0, profile: v1.1.0}", 1))}
		}
		pageHas(t, fs, "acme", c.want...)
	}
}

// An operator whose webhook fills fields from its configuration lists
// them with the values of the newest profile that has mutations, the key
// of each, and the command that learns a profile replacing the release.
func TestConfiguredSection(t *testing.T) {
	knative := func(s string) string { return strings.ReplaceAll(s, "acme", "knative-serving") }
	fs := fstest.MapFS{
		"knative-serving/v1.0.0.yaml": {Data: []byte(knative(acmeProfile) + "    mutations:\n      - path: .spec.template.spec.timeoutSeconds\n        value: 300\n")},
		"knative-serving/v1.1.0.yaml": {Data: []byte(knative(strings.ReplaceAll(acmeProfile, "v1.0.0", "v1.1.0")))},
		"knative-serving/index.yaml":  {Data: []byte(knative(strings.Replace(acmeIndex, "{version: v1.1.0, profile: v1.0.0}", "{version: v1.1.0, profile: v1.1.0}", 1)))},
	}
	pageHas(t, fs, "knative-serving",
		"## What depends on the operator's configuration",
		"| `.spec.template.spec.timeoutSeconds` | `300` | `config-defaults` `revision-timeout-seconds` |",
		"| `.spec.template.spec.containerConcurrency` | (nothing) | `config-defaults` `container-concurrency` |",
		"--as knative-serving@1.0.0 \\\n    --write ./my-profiles test/e2e/apiserver/testdata/webhooks/knative/inputs.yaml",
	)
}

// The changes between two releases say a rule's form and condition: a
// drop rule removes the value shown, it does not add it.
func TestChangesNameRuleForm(t *testing.T) {
	newer := strings.ReplaceAll(acmeProfile, "v1.0.0", "v1.1.0") + `    mutations:
      - path: .spec.paused
        value: false
        drop: true
      - path: .spec.tier
        value: gold
        when: .spec.mode == "Fast"
`
	fs := fstest.MapFS{
		"acme/v1.0.0.yaml": {Data: []byte(acmeProfile)},
		"acme/v1.1.0.yaml": {Data: []byte(newer)},
		"acme/index.yaml":  {Data: []byte(strings.Replace(acmeIndex, "{version: v1.1.0, profile: v1.0.0}", "{version: v1.1.0, profile: v1.1.0}", 1))},
	}
	pageHas(t, fs, "acme",
		"| added mutation (drop) | `.spec.paused` | `false` |",
		"| added mutation | `.spec.tier` when `.spec.mode == \"Fast\"` | `\"gold\"` |",
	)
}

// pageHas fails the test unless the page of op, from the profiles in fs,
// holds every one of want.
func pageHas(t *testing.T, fs fstest.MapFS, op string, want ...string) {
	t.Helper()
	st, err := operators.Load(operators.LoadOptions{Embedded: fs})
	if err != nil {
		t.Fatal(err)
	}
	page, err := Page(st, op)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(page), w) {
			t.Errorf("page lacks %q:\n%s", w, page)
		}
	}
}
