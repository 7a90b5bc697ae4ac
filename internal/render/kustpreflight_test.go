package render

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestCountResources(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		data string
		want int64
	}{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n", 2},
		{"apiVersion: v1\nkind: List\nitems:\n- {kind: ConfigMap}\n- {kind: ConfigMap}\n- {kind: ConfigMap}\n", 3},
		{"apiVersion: v1\nkind: List\nitems:\n- {kind: ConfigMapList, items: [{kind: A}, {kind: B}]}\n- {kind: C}\n---\nkind: A\n", 4},
		{`{"apiVersion": "v1", "kind": "SecretList", "items": [{"kind": "Secret"}, {"kind": "Secret"}]}`, 2},
		{"apiVersion: v1\nkind: WatchList\nspec: {}\n", 1}, // no items: one resource
		{"kind: List\nitems: []\n", 1}, // empty: never below the documents
	} {
		p := filepath.Join(dir, "r.yaml")
		write(t, dir, "r.yaml", tc.data)
		if got := countResources(p); got != tc.want {
			t.Errorf("%q: %d resources, want %d", tc.data, got, tc.want)
		}
	}
}

// Each builtin that loads a file is read, whatever the case of its keys.
func TestPluginConfigRefused(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"kind: ConfigMapGenerator\nmetadata: {name: g}\nfiles: [k=http://127.0.0.1:1/x]\n", `files entry of ConfigMapGenerator "g"`},
		{"kind: SecretGenerator\nmetadata: {name: g}\nEnvs: [HTTPS://localhost/x]\n", "envs entry"},
		{"kind: PatchTransformer\nmetadata: {name: p}\nPATH: http://127.0.0.1:1/x\n", "path entry"},
		{"kind: PatchJson6902Transformer\nmetadata: {name: p}\npath: git::http://h/x\ntarget: {name: a}\n", "path entry"},
		{"kind: PatchStrategicMergeTransformer\nmetadata: {name: p}\npaths: [http://127.0.0.1:1/x]\n", "paths entry"},
		{"kind: ReplacementTransformer\nmetadata: {name: p}\nreplacements: [{path: http://127.0.0.1:1/x}]\n", "replacements.path entry"},
		{"kind: ValueAddTransformer\nmetadata: {name: p}\ntargetFilePath: http://127.0.0.1:1/x\n", "targetFilePath entry"},
		{"kind: ConfigMapGenerator\nmetadata: {name: g}\nfiles: [../../../etc/hostname]\n", "outside the repository root"},
	} {
		root := t.TempDir()
		write(t, root, "app/kustomization.yaml", "transformers: [c.yaml]\n")
		write(t, root, "app/c.yaml", "apiVersion: builtin\n"+tc.config)
		real, _ := filepath.EvalSymlinks(root)
		_, err := preflightKustomization(context.Background(), real, filepath.Join(real, "app"), map[string]bool{}, newBudget(0))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.config, err, tc.want)
		}
		if strings.Contains(tc.config, "//") && !errors.Is(err, ErrRemote) {
			t.Errorf("%s: %v is not ErrRemote", tc.config, err)
		}
	}
}
