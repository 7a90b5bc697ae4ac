package operators

import (
	"strings"
	"testing"
)

// TestReadDefaultsChecked: readDefaults are checked like defaults, need the
// storage version they come from, and conversion is Webhook or absent.
func TestReadDefaultsChecked(t *testing.T) {
	const head = "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: x\nversion: v1.0.0\nresources:\n  - group: x.io\n    version: v2\n    kind: X\n"
	for _, tc := range []struct{ body, err string }{
		{"    storageVersion: v1\n    readDefaults:\n      - {path: .spec.a, type: string, value: b}\n", ""},
		{"    storageVersion: v1\n    conversion: Webhook\n    readDefaults:\n      - {path: .spec.a, value: b}\n", ""},
		{"    readDefaults:\n      - {path: .spec.a, value: b}\n", "readDefaults need storageVersion"},
		{"    storageVersion: v2\n    readDefaults:\n      - {path: .spec.a, value: b}\n", "storageVersion is this resource's own version"},
		{"    storageVersion: v1\n    conversion: None\n    readDefaults:\n      - {path: .spec.a, value: b}\n", `conversion "None": the only value is Webhook`},
		{"    storageVersion: v1\n    readDefaults:\n      - {path: .spec.a, type: integer, value: b}\n", `p.yaml:11: rule .spec.a: value "b" is not of type integer`},
		{"    storageVersion: v1\n    readDefaults:\n      - {path: .spec.a, value: 1}\n      - {path: .spec.a, value: 2}\n", "path is listed twice"},
	} {
		p, err := ParseProfile("p.yaml", []byte(head+tc.body))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.body, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: got %v, want an error with %q", tc.body, err, tc.err)
		case tc.err == "":
			r := p.Resources[0]
			if want := r.Conversion == ""; r.FillsOnRead() != want {
				t.Errorf("%s: FillsOnRead %v", tc.body, !want)
			}
		}
	}
}
