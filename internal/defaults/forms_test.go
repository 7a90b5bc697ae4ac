package defaults

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// formsProfile uses every mutation form: insert, format (by index and by
// position among the items filled), a condition on another list (the
// root bound with '. as $o'), drop, and a rewrite.
const formsProfile = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: v1.0.0
resources:
  - group: acme.io
    version: v1
    kind: Thing
    mutations:
      - path: .spec.queries
        value: {name: default, key: q}
        insert: first
        key: name
        when: .spec.noDefaults != true
      - path: .spec.containers[].name
        format: app-{n}
        when: (.spec.containers | length) > 1
      - path: .spec.ports[].name
        format: port-{index}
      - path: . as $o | .spec.containers[].mounts[] | select(.name as $n | any($o.spec.volumes[]?; .name == $n and .secret != null)) | .readOnly
        value: true
      - path: . as $o | .spec.containers[].mounts[] | select(.name as $n | any($o.spec.volumes[]?; .name == $n and .emptyDir != null)) | .readOnly
        value: false
        drop: true
    rewrites:
      - path: .spec.timeout
        from: 0
        to: 300
        reason: 'learned: 0 is stored as 300'
`

func TestMutationForms(t *testing.T) {
	e := compileText(t, formsProfile)
	obj := decodeOne(t, `
apiVersion: acme.io/v1
kind: Thing
metadata: {name: t}
spec:
  timeout: 0
  queries: [{name: mine, key: q}, {name: more, key: r}]
  ports: [{port: 1}, {port: 2, name: web}, {port: 3}]
  volumes: [{name: s, secret: {}}, {name: e, emptyDir: {}}]
  containers:
    - {name: given, mounts: [{name: s}, {name: e, readOnly: false}]}
    - {mounts: [{name: e}, {name: s, readOnly: false}]}
    - {}
`)
	var got []string
	if err := e.Fill(obj, func(f Filled) {
		v, _ := json.Marshal(f.Value)
		got = append(got, f.Type+" "+f.Path+" "+string(v))
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`mutation .spec.queries[0] {"key":"q","name":"default"}`,
		`mutation .spec.containers[1].name "app-0"`,
		`mutation .spec.containers[2].name "app-1"`,
		`mutation .spec.ports[0].name "port-0"`,
		`mutation .spec.ports[2].name "port-2"`,
		`mutation .spec.containers[0].mounts[0].readOnly true`,
		`drop .spec.containers[0].mounts[1].readOnly false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("filled:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	spec := obj["spec"].(map[string]any)
	if q := spec["queries"].([]any); len(q) != 3 || q[1].(map[string]any)["name"] != "mine" {
		t.Errorf("the user's entries changed: %v", q)
	}
	// The user's readOnly: false on a secret mount is not changed: it is a
	// rewrite, told as one.
	m := spec["containers"].([]any)[1].(map[string]any)["mounts"].([]any)[1].(map[string]any)
	if m["readOnly"] != false {
		t.Errorf("a value the user wrote changed: %v", m)
	}
	n := 0
	if err := e.Fill(obj, func(Filled) { n++ }); err != nil || n != 0 {
		t.Fatalf("second fill changed %d fields, err %v", n, err)
	}
	ws, err := e.RewriteWarnings(manifest.Object{Data: obj, Source: "app.yaml", Doc: 1, Line: 1})
	if err != nil || len(ws) != 1 || !strings.Contains(ws[0], ".spec.timeout: you wrote 0, and acme@1.0.0's admission stores 300") || !strings.Contains(ws[0], "app.yaml") {
		t.Fatalf("rewrite warnings %q, err %v", ws, err)
	}

	// An entry with the key already there is not inserted again; the
	// condition decides; no list, no insert.
	for _, y := range []string{
		"spec: {queries: [{name: mine}, {name: default, key: other}]}",
		"spec: {noDefaults: true, queries: [{name: mine}]}",
		"spec: {}",
	} {
		obj := decodeOne(t, "apiVersion: acme.io/v1\nkind: Thing\nmetadata: {name: t}\n"+y+"\n")
		before, _ := json.Marshal(obj)
		if err := e.Fill(obj, nil); err != nil {
			t.Fatal(err)
		}
		if after, _ := json.Marshal(obj); string(after) != string(before) {
			t.Errorf("%s: filled into %s", y, after)
		}
	}
	// One container: no format rule applies.
	obj = decodeOne(t, "apiVersion: acme.io/v1\nkind: Thing\nmetadata: {name: t}\nspec: {containers: [{}]}\n")
	if err := e.Fill(obj, nil); err != nil || obj["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["name"] != nil {
		t.Errorf("the only container got a name: %v (%v)", obj, err)
	}
}
