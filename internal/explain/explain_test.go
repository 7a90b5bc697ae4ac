package explain

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

const stream = `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: es, namespace: app}
spec:
  secretStoreRef: {name: store}
  data:
  - secretKey: k
    remoteRef: {key: k}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
`

// Each object says whether a selected profile covers it and, field by
// field, what was filled from which release.
func TestRun(t *testing.T) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Resolve("external-secrets", "v2.5.0", false)
	if err != nil {
		t.Fatal(err)
	}
	res := []*operators.Resolution{r}
	e, err := defaults.Compile(res, st.ProfileFile)
	if err != nil {
		t.Fatal(err)
	}
	var objs []manifest.Object
	if err := manifest.EachReader("in.yaml", strings.NewReader(stream), 1<<20, manifest.DefaultLimits, func(o manifest.Object) error {
		objs = append(objs, o)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rep, err := Fields(e, res, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Operators) != 1 || rep.Operators[0].Operator != "external-secrets" || len(rep.Objects) != 2 {
		t.Fatalf("report %+v", rep)
	}
	es, cm := rep.Objects[0], rep.Objects[1]
	if !es.Covered || len(es.Filled) == 0 || es.Name != "es" || es.Namespace != "app" || es.Line != 1 {
		t.Errorf("ExternalSecret: %+v", es)
	}
	for _, f := range es.Filled {
		if f.Origin.Operator != "external-secrets" || f.Rule == "" {
			t.Errorf("filled field without provenance: %+v", f)
		}
	}
	if cm.Covered || len(cm.Filled) != 0 || cm.Document != 2 {
		t.Errorf("ConfigMap: %+v", cm)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "no selected profile has rules for this kind: passed through") ||
		!strings.Contains(text.String(), "2 object(s): 1 filled") {
		t.Errorf("text report:\n%s", text.String())
	}
}
