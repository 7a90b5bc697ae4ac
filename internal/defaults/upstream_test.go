package defaults

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/cmp-defaults/cmp-defaults/internal/operators/extract"
)

// TestDifferentialUpstreamCRDs compares the engine with apiserver defaulting
// on the real operator CRDs in ../shared/crds, each release folder, each
// served version, using the CRD's own structural schema. It is a maintainer
// check (scripts/check-shared.sh sets CMP_DEFAULTS_SHARED_CRDS); the CRDs are
// never committed.
func TestDifferentialUpstreamCRDs(t *testing.T) {
	root := os.Getenv("CMP_DEFAULTS_SHARED_CRDS")
	if root == "" {
		t.Skip("CMP_DEFAULTS_SHARED_CRDS is not set; scripts/check-shared.sh runs this against ../shared/crds")
	}
	files, err := filepath.Glob(filepath.Join(root, "*", "v*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs under %s (%v)", root, err)
	}
	compared, read := 0, 0
	for fi, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crds, err := extract.ParseCRDs([]extract.CRDFile{{Name: f, Data: data}})
		if err != nil {
			t.Fatal(err)
		}
		for _, crd := range crds {
			p, err := extract.Profile("upstream", "1.0.0", []apiextv1.CustomResourceDefinition{crd})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for i := range p.Resources {
				rs := &p.Resources[i]
				s := crdStructural(t, crd, rs.Version)
				// Status is left out (see extract.Profile), also where the
				// CRD defaults status itself (Gateway API's conditions).
				delete(s.Properties, "status")
				// A served version stored as another: the storage version's
				// defaults on read, as the CRD file converts (None unless it
				// names a webhook), so on the real schemas of both.
				var storage *structuralschema.Structural
				if rs.FillsOnRead() {
					storage = crdStructural(t, crd, rs.StorageVersion)
					delete(storage.Properties, "status")
					read++
				}
				e := engineFor(t, p, rs)
				g := gen{rand.New(rand.NewSource(int64(fi*100 + i)))}
				for k := 0; k < 10; k++ {
					obj := g.value(s, 0).(map[string]any)
					obj["apiVersion"], obj["kind"] = rs.APIVersion(), rs.Kind
					delete(obj, "status")
					compareRead(t, fmt.Sprintf("%s %s #%d", f, rs.Version, k), e, s, storage, obj)
					compared++
				}
			}
		}
	}
	t.Logf("%d objects compared over %d CRD files, %d served versions with defaults on read", compared, len(files), read)
}
