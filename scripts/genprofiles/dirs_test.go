package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// An operator of several controllers: CRDs read from several folders at a
// tag (a list in dir), mutating webhooks from several manifests, each webhook
// recorded with the file that registers it.
func TestSeveralFoldersAndManifests(t *testing.T) {
	widgets := strings.NewReplacer("gizmos", "widgets", "Gizmo", "Widget").Replace(gizmoCRD("example.com", "Fast"))
	trees := map[string]map[string]string{"v1.0.0": {
		"crds/gizmos.yaml":              gizmoCRD("example.com", "Slow"),
		"widget/crds/widgets.yaml":      widgets,
		"config/webhook/manifests.yaml": webhookManifest(map[string]string{"mgizmo": "gizmos"}),
		"widget/webhook/manifests.yaml": webhookManifest(map[string]string{"mwidget": "widgets"}),
	}}
	git := testMirror(t, []string{"v1.0.0"}, trees)
	e := entry{Name: "gizmo", Repository: "github.com/example/gizmo", Groups: []string{"example.com"}, Source: "mirror", Mirror: "example+gizmo",
		Tags:  tagFilter{Pattern: `^v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.0.0"},
		Paths: []pathSpec{{From: "v1.0.0", Dir: pathList{"crds", "widget/crds"}}},
		// A manifest no release has is read as absent where another is there.
		Webhooks: &webhookSpec{Manifest: pathList{"config/webhook/manifests.yaml", "core/webhook/manifests.yaml", "widget/webhook/manifests.yaml"}},
	}
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	files, err := generateMirror(&e, newMirror(git), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := operators.ParseIndex("index.yaml", files["index.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	var hooks []string
	for _, h := range ix.Webhooks {
		hooks = append(hooks, h.Name+" "+h.File)
	}
	if g, w := strings.Join(hooks, ", "), "mgizmo config/webhook/manifests.yaml, mwidget widget/webhook/manifests.yaml"; g != w {
		t.Errorf("webhooks:\n got %s\nwant %s", g, w)
	}
	if !strings.Contains(ix.Source, "crds + widget/crds") {
		t.Errorf("source: %s", ix.Source)
	}
	p, err := operators.ParseProfile("v1.0.0", files["v1.0.0.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Resources {
		got = append(got, fmt.Sprintf("%s %s %v", r.Kind, r.Webhook, r.Defaults[0].Value))
	}
	if g, w := strings.Join(got, ", "), "Gizmo mgizmo Slow, Widget mwidget Fast"; g != w {
		t.Errorf("resources:\n got %s\nwant %s", g, w)
	}
	if n := len(p.Provenance.Files); n != 2 {
		t.Errorf("provenance: %d files, want 2", n)
	}
	// Every folder named.
	e.Paths[0].Dir = pathList{"crds", ""}
	if err := e.validate(); err == nil || !strings.Contains(err.Error(), "paths[0]: dir is required") {
		t.Errorf("an empty folder: %v", err)
	}
}
