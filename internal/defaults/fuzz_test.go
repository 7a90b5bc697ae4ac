package defaults

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// allEngines compiles every shipped profile, one engine each.
func allEngines(t testing.TB) []*Engine {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	var out []*Engine
	for _, op := range st.Operators() {
		ps, err := st.Profiles(op)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			e, err := Compile([]*operators.Resolution{{Operator: op, Requested: p.Version, Profile: p}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
	}
	return out
}

// FuzzFill: random objects against every shipped profile. Invariants: no
// panic; a fill either fails with an error or is idempotent, keeps every
// value the user wrote, and only adds fields.
func FuzzFill(f *testing.F) {
	for _, s := range []string{
		"apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nspec: {data: [{remoteRef: {key: k}}, null, {remoteRef: null}], target: {}}\n",
		"apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nspec: {dataFrom: [{extract: {key: k}}, {find: {}}]}\n",
		"apiVersion: cert-manager.io/v1\nkind: Certificate\nspec: {issuerRef: {name: x}, privateKey: {}}\n",
		"apiVersion: external-secrets.io/v1\nkind: SecretStore\nspec: {provider: {aws: {service: SecretsManager}, vault: {auth: {}}}}\n",
		"apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nspec: {data: 5}\n",
		"apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nspec: {externalSecretSpec: {data: [{remoteRef: {}}]}}\n",
	} {
		f.Add([]byte(s))
	}
	engines := allEngines(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Decode("fuzz", data)
		if err != nil {
			return
		}
		for _, e := range engines {
			for _, o := range objs {
				orig := runtime.DeepCopyJSONValue(o.Data).(map[string]any)
				obj := runtime.DeepCopyJSONValue(o.Data).(map[string]any)
				var filled []Filled
				if err := e.Fill(obj, func(f Filled) { filled = append(filled, f) }); err != nil {
					if !strings.Contains(err.Error(), "the schema says") {
						t.Fatalf("unexpected error kind: %v", err)
					}
					continue
				}
				if !kept(orig, obj) {
					t.Fatalf("a user value changed:\n in %v\nout %v", orig, obj)
				}
				if len(filled) == 0 && !reflect.DeepEqual(orig, obj) {
					t.Fatalf("object changed without a record")
				}
				n := 0
				if err := e.Fill(obj, func(Filled) { n++ }); err != nil || n != 0 {
					t.Fatalf("not idempotent: %d more fields, %v", n, err)
				}
			}
		}
	})
}

// kept reports whether every non-null value of a is still in b unchanged
// (b may have more fields).
func kept(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range a {
			if v == nil {
				continue // null may become a default (non-nullable fields)
			}
			if !kept(v, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return false
		}
		for i := range a {
			if a[i] != nil && !kept(a[i], bl[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
