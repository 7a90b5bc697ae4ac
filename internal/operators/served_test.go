package operators_test

import (
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

func TestUnserved(t *testing.T) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		release, apiVersion, kind, want string
	}{
		{"2.5.0", "external-secrets.io/v1beta1", "ExternalSecret", "external-secrets@0.17.0 stopped serving it (last served in 0.16.2)"},
		{"0.16.0", "external-secrets.io/v1beta1", "ExternalSecret", ""},
		{"2.5.0", "external-secrets.io/v1", "ExternalSecret", ""},
		{"2.5.0", "v1", "ConfigMap", ""},
		{"2.5.0", "example.io/v1", "Thing", ""},
	} {
		r, err := st.Resolve("external-secrets", tc.release, false)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Unserved(st, tc.apiVersion, tc.kind)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s %s: got %q, want %q", tc.release, tc.apiVersion, tc.kind, got, tc.want)
		}
	}
	// A kind missing from a profile altogether (no defaults in that release)
	// says nothing about what is served.
	r, err := st.Resolve("cert-manager", "1.19.1", false)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Unserved(st, "cert-manager.io/v1", "Certificate"); got != "" {
		t.Errorf("cert-manager 1.19.1 Certificate: %q", got)
	}
}

// Another operator of the group (Gateway API's other channel) or a later
// release of the same one is named; a kind the release ships without
// defaults is not.
func TestUnservedNamesServer(t *testing.T) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op, release, apiVersion, kind, want string
	}{
		{"gateway-api", "1.6.1", "gateway.networking.k8s.io/v1alpha3", "TLSRoute", "gateway-api-experimental@1.6.1 (experimental channel) does"},
		{"gateway-api", "1.0.0", "gateway.networking.k8s.io/v1alpha3", "TLSRoute", "gateway-api-experimental (experimental channel) from 1.4.0 to 1.6.1 does"},
		{"gateway-api", "1.4.0", "gateway.networking.k8s.io/v1", "TCPRoute", "gateway-api@1.6.0 is the first release that does"},
		{"gateway-api", "1.6.1", "gateway.networking.k8s.io/v1", "TCPRoute", ""},
		{"gateway-api", "1.6.1", "gateway.networking.k8s.io/v1beta1", "ReferenceGrant", ""},
		{"gateway-api-experimental", "1.6.1", "gateway.networking.k8s.io/v1alpha3", "TLSRoute", ""},
	} {
		r, err := st.Resolve(tc.op, tc.release, false)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Unserved(st, tc.apiVersion, tc.kind)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s@%s %s %s: got %q, want %q", tc.op, tc.release, tc.apiVersion, tc.kind, got, tc.want)
		}
	}
}
