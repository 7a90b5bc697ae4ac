package manifest

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubeyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/benchdata"
)

const jsonStreamInput = `apiVersion: v1
kind: ConfigMap
metadata: {name: a, annotations: {"a.b/c": "<x & y>", empty: ""}}
data: {t: "true", n: "010", u: "é ☃ \u2028", nl: "a\nb"}
---
apiVersion: acme.io/v1
kind: Thing
metadata: {name: b}
spec:
  i: 3
  f: 1.5
  big: 1e21
  huge: 18446744073709551615
  neg: -0.0
  whole: 2.0
  b: false
  nothing: null
  list: [1, "2", [], {}, [null]]
  deep: {x: {y: {z: [a]}}}
`

// argoObjects reads a plugin's output the way Argo CD's repo server does
// (gitops-engine's kube.SplitYAML): apimachinery's YAML-or-JSON decoder,
// then each document as an unstructured object.
func argoObjects(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	d := kubeyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	var objs []map[string]any
	for {
		ext := runtime.RawExtension{}
		if err := d.Decode(&ext); err == io.EOF {
			return objs
		} else if err != nil {
			t.Fatal(err)
		}
		ext.Raw = bytes.TrimSpace(ext.Raw)
		if len(ext.Raw) == 0 || bytes.Equal(ext.Raw, []byte("null")) {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := sigsyaml.Unmarshal(ext.Raw, u); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u.Object)
	}
}

// TestJSONStreamIsTheYAMLForArgoCD: what Argo CD reads from the JSON
// stream equals what it reads from the YAML stream of the same objects,
// one compact line per object, and the stream decodes back to them.
func TestJSONStreamIsTheYAMLForArgoCD(t *testing.T) {
	for name, in := range map[string][]byte{"values": []byte(jsonStreamInput), "benchdata": benchdata.Stream(20)} {
		objs, err := Decode("in.yaml", in)
		if err != nil {
			t.Fatal(err)
		}
		var y, j bytes.Buffer
		if err := Encode(&y, objs, "yaml"); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&j, objs, JSONStream); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(j.String(), "\n"), "\n")
		if len(lines) != len(objs) {
			t.Fatalf("%s: %d lines for %d objects", name, len(lines), len(objs))
		}
		// Argo CD hands the text of a JSON object on and writes the
		// objects it read from YAML with encoding/json: the same bytes.
		for i, line := range lines {
			var want bytes.Buffer
			err := json.NewEncoder(&want).Encode(objs[i].Data)
			if err != nil || line+"\n" != want.String() {
				t.Fatalf("%s: line %d is\n%s\nnot encoding/json's\n%s", name, i, line, want.String())
			}
		}
		fromYAML, fromJSON := argoObjects(t, y.Bytes()), argoObjects(t, j.Bytes())
		if len(fromYAML) != len(objs) || !reflect.DeepEqual(fromYAML, fromJSON) {
			t.Fatalf("%s: Argo CD reads other objects from the JSON stream:\nYAML %v\nJSON %v", name, fromYAML, fromJSON)
		}
		back, err := Decode("out.json", j.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for i := range objs {
			if !reflect.DeepEqual(back[i].Data, objs[i].Data) {
				t.Fatalf("%s: object %d decodes back as %v, want %v", name, i, back[i].Data, objs[i].Data)
			}
		}
	}
}
