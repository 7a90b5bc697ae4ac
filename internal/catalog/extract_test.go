package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.acme.io
spec:
  group: acme.io
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: {type: integer, default: 2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
`

func TestExtractFromFiles(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "crds.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	crds, err := CRDsFromFiles([]string{src}, 1<<20, manifest.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(crds.CRDs) != 1 || crds.From != "from 1 CRD(s)" {
		t.Fatalf("CRDs: %d, from %q", len(crds.CRDs), crds.From)
	}
	x, err := Extract("acme", "1.2.3", crds)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, errw bytes.Buffer
	note, err := x.WriteTo(out)
	if err != nil {
		t.Fatal(err)
	}
	errw.WriteString(note)
	if stdout.Len() != 0 || !strings.Contains(errw.String(), "1 kind version(s), 1 default(s), from 1 CRD(s)") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), errw.String())
	}
	files, _ := filepath.Glob(filepath.Join(out, "acme_*.yaml"))
	if len(files) != 1 || !strings.Contains(errw.String(), "wrote "+files[0]+":") {
		t.Fatalf("written %v; stderr %q", files, errw.String())
	}
	written, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := operators.ParseProfile("written", written)
	if err != nil || p.Operator != "acme" || !strings.Contains(p.Description, "from 1 CRD(s)") {
		t.Errorf("written profile: %v, %+v", err, p)
	}

	if _, err := CRDsFromFiles([]string{filepath.Join(src, "nothing.yaml")}, 1<<20, manifest.DefaultLimits); err == nil {
		t.Error("a missing file: no error")
	}
	empty := filepath.Join(t.TempDir(), "cm.yaml")
	if err := os.WriteFile(empty, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CRDsFromFiles([]string{empty}, 1<<20, manifest.DefaultLimits); err == nil || !strings.Contains(err.Error(), "no CustomResourceDefinition found") {
		t.Errorf("no CRD: %v", err)
	}
}
