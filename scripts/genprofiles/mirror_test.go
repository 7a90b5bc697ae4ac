package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/operators/extract"
)

// gizmoCRD is a small CRD; mode's default is what changes between tags.
func gizmoCRD(group, mode string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.%[1]s}
spec:
  group: %[1]s
  names: {kind: Gizmo, plural: gizmos}
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
                mode: {type: string, default: %[2]s}
`, group, mode)
}

// testMirror builds a bare repository with one commit per tag: tag ->
// file path -> content; a content "-> TARGET" is a symbolic link to TARGET.
// It needs the git command, as the generator does.
func testMirror(t *testing.T, tags []string, trees map[string]map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	work := t.TempDir()
	run := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE=2024-03-01T12:00:00Z", "GIT_COMMITTER_DATE=2024-03-01T23:30:00-02:00", "GIT_CONFIG_NOSYSTEM=1", "HOME="+work)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	src := filepath.Join(work, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	run(src, "init", "-q")
	for _, tag := range tags {
		if err := os.RemoveAll(filepath.Join(src, "crds")); err != nil {
			t.Fatal(err)
		}
		for p, content := range trees[tag] {
			f := filepath.Join(src, p)
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if target, ok := strings.CutPrefix(content, "-> "); ok {
				if err := os.Symlink(target, f); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run(src, "add", "-A")
		run(src, "commit", "-q", "--allow-empty", "-m", tag)
		run(src, "tag", tag)
	}
	bare := filepath.Join(work, "mirror", "repo")
	run(work, "clone", "-q", "--bare", src, bare)
	return bare
}

func TestGenerateMirror(t *testing.T) {
	old, newer := gizmoCRD("example.com", "Slow"), gizmoCRD("example.com", "Fast")
	notAnObject := "resources: [a.yaml]\n"
	trees := map[string]map[string]string{
		"v1.0.0":    {"crds/example.com_gizmos.yaml": old, "crds/kustomization.yaml": notAnObject},
		"v1.0.1":    {"crds/example.com_gizmos.yaml": old, "crds/kustomization.yaml": notAnObject},
		"v1.1.0-rc": {"crds/example.com_gizmos.yaml": newer},
		"v1.1.0":    {"crds/sub/example.com_gizmos.yaml": newer, "crds/kustomization.yaml": notAnObject},
		"v1.1.1":    {"crds/sub/example.com_gizmos.yaml": old},
		"v1.2.0":    {"crds/sub/example.com_gizmos.yaml": old},
	}
	git := testMirror(t, []string{"v1.0.0", "v1.0.1", "v1.1.0-rc", "v1.1.0", "v1.1.1", "v1.2.0"}, trees)
	e := entry{
		Name: "gizmo", Repository: "github.com/example/gizmo", Channel: "standard", Groups: []string{"example.com"},
		Source: "mirror", Mirror: "example+gizmo",
		Tags: tagFilter{Pattern: `^v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.1.1", Exclude: []string{"v1.0.1"}},
		Paths: []pathSpec{
			{From: "v1.0.0", Dir: pathList{"crds"}, Skip: []string{"kustomization.yaml"}},
			{From: "v1.1.0", Dir: pathList{"crds"}, Recursive: true, Skip: []string{"kustomization.yaml"}},
		},
	}
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	files, err := generateMirror(&e, newMirror(git), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// v1.0.0 and v1.1.0 change the default, v1.1.1 changes it back: three
	// change points. The rc, the excluded tag and v1.2.0 (after To) are
	// not releases of the range.
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "index.yaml v1.0.0.yaml v1.1.0.yaml v1.1.1.yaml" {
		t.Fatalf("files: %s", got)
	}
	ix, err := operators.ParseIndex("index.yaml", files["index.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, r := range ix.Releases {
		rels = append(rels, r.Version+"="+r.Profile+"@"+r.Date)
	}
	// The committer date in UTC: 23:30 at -02:00 is the next day.
	if got := strings.Join(rels, " "); got != "v1.0.0=v1.0.0@2024-03-02 v1.1.0=v1.1.0@2024-03-02 v1.1.1=v1.1.1@2024-03-02" {
		t.Errorf("index releases: %s", got)
	}
	p, err := operators.ParseProfile("v1.1.0.yaml", files["v1.1.0.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	if p.Channel != "standard" || p.Resources[0].Defaults[0].Value != "Fast" {
		t.Errorf("v1.1.0: channel %q, defaults %+v", p.Channel, p.Resources[0].Defaults)
	}
	hash := exec.Command("git", "hash-object", "--stdin")
	hash.Stdin = strings.NewReader(newer)
	blob, err := hash.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := operators.Provenance{Repository: "github.com/example/gizmo", Tag: "v1.1.0",
		Files: []operators.ProvenanceFile{{Path: "crds/sub/example.com_gizmos.yaml", Blob: strings.TrimSpace(string(blob))}}}
	if p.Provenance == nil || fmt.Sprint(*p.Provenance) != fmt.Sprint(want) {
		t.Errorf("provenance: got %+v, want %+v", p.Provenance, want)
	}
	// Byte for byte the same on a second run.
	again, err := generateMirror(&e, newMirror(git), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		if string(again[n]) != string(b) {
			t.Errorf("%s differs between two runs", n)
		}
	}

	// A CRD of a group the catalog does not list is an error, not a skip.
	e.Groups = []string{"other.example.com"}
	if _, err := generateMirror(&e, newMirror(git), t.TempDir()); err == nil || !regexp.MustCompile(`v1.0.0:crds/example.com_gizmos.yaml: CRD gizmos.example.com is in group example.com, which the catalog does not list`).MatchString(err.Error()) {
		t.Errorf("foreign group: %v", err)
	}
	// A range whose ends the mirror lacks says so.
	e.Groups, e.Tags.To = []string{"example.com"}, "v1.3.0"
	if _, err := generateMirror(&e, newMirror(git), t.TempDir()); err == nil || !strings.Contains(err.Error(), "want v1.0.0..v1.3.0") {
		t.Errorf("missing tag: %v", err)
	}
}

// The shipped catalog is valid and names every shipped operator.
func TestCatalog(t *testing.T) {
	c, err := readCatalog(filepath.Join("..", "..", "profiles", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join("..", "..", "profiles", "*", "index.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range c.Operators {
		names[e.Name] = true
	}
	for _, d := range dirs {
		if op := filepath.Base(filepath.Dir(d)); !names[op] {
			t.Errorf("shipped operator %s is not in the catalog", op)
		}
	}
	if len(dirs) != len(c.Operators) {
		t.Errorf("%d shipped operators, %d in the catalog", len(dirs), len(c.Operators))
	}
}

// webhookManifest is an install manifest with mutating webhooks: each name
// matches resources of example.com, and "mpod" matches Pods.
func webhookManifest(hooks map[string]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: m}\nwebhooks:\n")
	var names []string
	for n := range hooks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  - name: %s\n    rules:\n      - {apiGroups: [example.com], apiVersions: [v1], resources: [%s], operations: [CREATE, UPDATE]}\n", n, hooks[n])
	}
	b.WriteString("  - name: mpod\n    rules:\n      - {apiGroups: [\"\"], apiVersions: [v1], resources: [pods], operations: [CREATE]}\n")
	b.WriteString("---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\nwebhooks:\n  - name: vgizmo\n    rules:\n      - {apiGroups: [example.com], apiVersions: [v1], resources: [gizmos], operations: [CREATE]}\n")
	return b.String()
}

// The webhooks of the operator's groups are recorded in the index per run
// of releases over which their rules stay the same, and on each release's
// resources they match; others (Pods, validating, subresources) are not.
// A second manifest is read at the releases that have it.
func TestWebhooks(t *testing.T) {
	const file, extra = "config/webhook/manifests.yaml", "config/webhook/extra/manifests.yaml"
	crd := gizmoCRD("example.com", "Slow")
	trees := map[string]map[string]string{
		"v1.0.0": {"crds/gizmos.yaml": crd},
		"v1.1.0": {"crds/gizmos.yaml": crd, file: webhookManifest(map[string]string{"mgizmo": "gizmos"})},
		"v1.2.0": {"crds/gizmos.yaml": crd, file: webhookManifest(map[string]string{"mgizmo": "gizmos", "mwidget": "widgets"})},
		"v1.3.0": {"crds/gizmos.yaml": crd, file: webhookManifest(map[string]string{"mgizmo": "gizmos/scale", "mwidget": "widgets"}),
			extra: webhookManifest(map[string]string{"mextra": "extras"})},
	}
	git := testMirror(t, []string{"v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0"}, trees)
	e := entry{Name: "gizmo", Repository: "github.com/example/gizmo", Groups: []string{"example.com"}, Source: "mirror", Mirror: "example+gizmo",
		Tags:     tagFilter{Pattern: `^v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.3.0"},
		Paths:    []pathSpec{{From: "v1.0.0", Dir: pathList{"crds"}}},
		Webhooks: &webhookSpec{Manifest: pathList{file, extra}},
	}
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	m := newMirror(git)
	files, err := generateMirror(&e, m, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := operators.ParseIndex("index.yaml", files["index.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range ix.Webhooks {
		got = append(got, fmt.Sprintf("%s %s..%s %v", h.Name, h.From, h.To, h.Rules[0].Resources))
	}
	want := "mextra v1.3.0..v1.3.0 [extras], mgizmo v1.1.0..v1.2.0 [gizmos], mgizmo v1.3.0..v1.3.0 [gizmos/scale], mwidget v1.2.0..v1.3.0 [widgets]"
	if strings.Join(got, ", ") != want {
		t.Errorf("webhooks:\n got %s\nwant %s", strings.Join(got, ", "), want)
	}
	if ix.Webhooks[0].File != extra || ix.Webhooks[1].File != file || ix.Webhooks[1].Rules[0].Operations[1] != "UPDATE" {
		t.Errorf("index webhooks: %+v", ix.Webhooks)
	}
	// Each release's profile names the webhook that writes its resource.
	marks := map[string]string{}
	for _, r := range ix.Releases {
		p, err := operators.ParseProfile(r.Profile, files[r.Profile+".yaml"])
		if err != nil {
			t.Fatal(err)
		}
		marks[r.Version] = p.Resources[0].Webhook + " (" + r.Mutations + ")"
	}
	if g, w := fmt.Sprint(marks), "map[v1.0.0: (none learned) v1.1.0:mgizmo (none learned) v1.2.0:mgizmo (none learned) v1.3.0: (none learned)]"; g != w {
		t.Errorf("marks:\n got %s\nwant %s", g, w)
	}
	// A file at no release is a mistake in the catalog, not an absence.
	e.Webhooks.Manifest = pathList{"config/webhooks/manifests.yaml"}
	if _, err := generateMirror(&e, m, t.TempDir()); err == nil || !strings.Contains(err.Error(), "config/webhooks/manifests.yaml is at none of the releases v1.0.0..v1.3.0") {
		t.Errorf("missing file: %v", err)
	}
}

// A webhook the manifest registers without rules matches nothing, unless
// the catalog says its rules are written at run time for every CRD.
func TestWebhookRulesFromCRDs(t *testing.T) {
	const file = "config/500-webhooks.yaml"
	manifest := "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: m}\nwebhooks:\n  - name: webhook.example.com\n    clientConfig: {service: {name: w, namespace: ns}}\n"
	// Widgets have no schema default: the webhook is all that writes them.
	widgets := strings.NewReplacer("gizmos", "widgets", "Gizmo", "Widget", ", default: Slow", "").Replace(gizmoCRD("example.com", "Slow"))
	trees := map[string]map[string]string{"v1.0.0": {"crds/gizmos.yaml": gizmoCRD("example.com", "Slow"), "crds/widgets.yaml": widgets, file: manifest}}
	git := testMirror(t, []string{"v1.0.0"}, trees)
	for _, fromCRDs := range []bool{false, true} {
		e := entry{Name: "gizmo", Repository: "github.com/example/gizmo", Groups: []string{"example.com"}, Source: "mirror", Mirror: "example+gizmo",
			Tags:     tagFilter{Pattern: `^v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.0.0"},
			Paths:    []pathSpec{{From: "v1.0.0", Dir: pathList{"crds"}}},
			Webhooks: &webhookSpec{Manifest: pathList{file}, RulesFromCRDs: fromCRDs},
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
		p, err := operators.ParseProfile("v1.0.0", files[ix.Releases[0].Profile+".yaml"])
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range p.Resources {
			got = append(got, r.Kind+":"+r.Webhook)
		}
		want := "[Gizmo:]"
		if fromCRDs {
			want = "[Gizmo:webhook.example.com Widget:webhook.example.com]"
		}
		if fmt.Sprint(got) != want {
			t.Errorf("rulesFromCRDs %v: resources and webhooks %v, want %s", fromCRDs, got, want)
		}
		if fromCRDs && (len(ix.Webhooks) != 1 || fmt.Sprint(ix.Webhooks[0].Rules[0].Resources, ix.Webhooks[0].Rules[0].APIVersions) != "[gizmos] [*]") {
			t.Errorf("index webhooks: %+v", ix.Webhooks)
		}
	}
}

// -newest-crds copies the CRD files of the newest release in range, laid
// out as a directory source, and leaves out files that hold no CRD.
func TestWriteNewest(t *testing.T) {
	old, newer := gizmoCRD("example.com", "Slow"), gizmoCRD("example.com", "Fast")
	trees := map[string]map[string]string{
		"v1.0.0": {"crds/gizmos.yaml": old},
		"v1.1.0": {"crds/sub/gizmos.yaml": newer, "crds/kustomization.yaml": "resources: [sub/gizmos.yaml]\n"},
		"v1.2.0": {"crds/sub/gizmos.yaml": old},
	}
	git := testMirror(t, []string{"v1.0.0", "v1.1.0", "v1.2.0"}, trees)
	e := entry{Name: "gizmo", Repository: "github.com/example/gizmo", Groups: []string{"example.com"}, Source: "mirror", Mirror: "example+gizmo",
		Tags:  tagFilter{Pattern: `^v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.1.0"},
		Paths: []pathSpec{{From: "v1.0.0", Dir: pathList{"crds"}, Recursive: true, Skip: []string{"kustomization.yaml"}}},
	}
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tag, err := writeNewest(&e, newMirror(git), dir)
	if err != nil {
		t.Fatal(err)
	}
	if tag != "v1.1.0" {
		t.Errorf("newest release: %s, want v1.1.0 (v1.2.0 is after the range)", tag)
	}
	got, err := filepath.Glob(filepath.Join(dir, "*", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "gizmo", "v1.1.0", "gizmos.yaml")
	if len(got) != 1 || got[0] != want {
		t.Fatalf("files: %v, want %s", got, want)
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != newer {
		t.Errorf("%s: %v\n%s", want, err, b)
	}
}

// Tags with a prefix (knative-v1.15.2) are releases named by the version
// after it, and a CRD file that is a symbolic link is read as the file it
// points to (Knative links the CRDs of the projects it vendors).
func TestPrefixedTagsAndLinks(t *testing.T) {
	gizmos, widgets := gizmoCRD("example.com", "Slow"), strings.NewReplacer("Gizmo", "Widget", "gizmos", "widgets").Replace(gizmoCRD("other.example.com", "Fast"))
	trees := map[string]map[string]string{
		"proj-v1.0.0": {"crds/gizmos.yaml": gizmos, "crds/widgets.yaml": "-> ../vendor/other/widgets.yaml", "vendor/other/widgets.yaml": widgets},
		"v9.0.0":      {"crds/gizmos.yaml": gizmos},
		"proj-v1.1.0": {"crds/gizmos.yaml": gizmos, "crds/widgets.yaml": "-> ../vendor/other/widgets.yaml", "vendor/other/widgets.yaml": strings.ReplaceAll(widgets, "Fast", "Faster")},
	}
	git := testMirror(t, []string{"proj-v1.0.0", "v9.0.0", "proj-v1.1.0"}, trees)
	e := entry{
		Name: "proj", Repository: "github.com/example/proj", Groups: []string{"example.com", "other.example.com"},
		Source: "mirror", Mirror: "example+proj",
		Tags:  tagFilter{Prefix: "proj-", Pattern: `^proj-v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.1.0"},
		Paths: []pathSpec{{From: "v1.0.0", Dir: pathList{"crds"}}},
	}
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	files, err := generateMirror(&e, newMirror(git), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "index.yaml v1.0.0.yaml v1.1.0.yaml" {
		t.Fatalf("files: %s", got)
	}
	p, err := operators.ParseProfile("v1.1.0.yaml", files["v1.1.0.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	if p.Provenance.Tag != "proj-v1.1.0" || len(p.Provenance.Files) != 2 || p.Provenance.Files[1].Path != "vendor/other/widgets.yaml" {
		t.Errorf("provenance: %+v", p.Provenance)
	}
	var modes []string
	for _, r := range p.Resources {
		for _, d := range r.Defaults {
			modes = append(modes, r.Kind+"="+fmt.Sprint(d.Value))
		}
	}
	sort.Strings(modes)
	if got := strings.Join(modes, " "); got != "Gizmo=Slow Widget=Faster" {
		t.Errorf("defaults at v1.1.0: %s", got)
	}
	trees["proj-v1.0.0"]["crds/widgets.yaml"] = "-> ../../outside.yaml"
	git = testMirror(t, []string{"proj-v1.0.0", "proj-v1.1.0"}, trees)
	if _, err := generateMirror(&e, newMirror(git), t.TempDir()); err == nil || !strings.Contains(err.Error(), "proj-v1.0.0:crds/widgets.yaml: links out of the repository") {
		t.Errorf("a link out of the repository: %v", err)
	}
}

// Learned mutations of a kind the CRDs serve without any schema default
// (Knative's Route) add that kind to the release's profile; a kind the
// CRDs do not serve is an error.
func TestAddLearnedKindWithoutDefaults(t *testing.T) {
	crds, err := extract.ParseCRDs([]extract.CRDFile{{Name: "widgets.yaml", Data: []byte(strings.NewReplacer("Gizmo", "Widget", "gizmos", "widgets", "default: Fast", "type: string").Replace(gizmoCRD("example.com", "Fast")))}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	learned := func(kind string) {
		t.Helper()
		f := filepath.Join(dir, "proj", "v1.0.0.yaml")
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		data := "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: proj\nversion: v1.0.0\nlearned: {cluster: test, serverVersion: v1.37.0, module: example.com/proj@v1.0.0, objects: 1}\n" +
			"resources:\n  - {group: example.com, version: v1, kind: " + kind + ", mutations: [{path: .spec.size, value: 1}]}\n"
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	learned("Widget")
	p := &operators.Profile{}
	mod, err := addLearned(dir, "proj", "v1.0.0", crds, p)
	if err != nil || mod != "example.com/proj@v1.0.0" {
		t.Fatalf("addLearned: %q %v", mod, err)
	}
	if len(p.Resources) != 1 || p.Resources[0].Kind != "Widget" || len(p.Resources[0].Mutations) != 1 {
		t.Errorf("resources: %+v", p.Resources)
	}
	learned("Gadget")
	if _, err := addLearned(dir, "proj", "v1.0.0", crds, &operators.Profile{}); err == nil || !strings.Contains(err.Error(), "Gadget is not served") {
		t.Errorf("a kind the CRDs do not serve: %v", err)
	}
}

// An optional webhook's entry (mutationsOnly) keeps the kinds its webhook
// matches, with the mutations learned for a release and no schema
// defaults: its profiles are selected next to the operator's own.
func TestMutationsOnly(t *testing.T) {
	const file = "config/webhook/manifests.yaml"
	widgets := strings.NewReplacer("gizmos", "widgets", "Gizmo", "Widget").Replace(gizmoCRD("example.com", "Fast"))
	tree := map[string]string{"crds/gizmos.yaml": gizmoCRD("example.com", "Slow"), "crds/widgets.yaml": widgets, file: webhookManifest(map[string]string{"mgizmo": "gizmos"})}
	git := testMirror(t, []string{"v1.0.0", "v1.1.0"}, map[string]map[string]string{"v1.0.0": tree, "v1.1.0": tree})
	learnedDir := t.TempDir()
	f := filepath.Join(learnedDir, "gizmo-webhook", "v1.1.0.yaml")
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	learned := "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: gizmo-webhook\nversion: v1.1.0\nlearned: {cluster: test, serverVersion: v1.37.0, module: example.com/gizmo@v1.1.0, objects: 1}\n" +
		"resources:\n  - {group: example.com, version: v1, kind: Gizmo, mutations: [{path: .metadata.annotations.checked, value: \"true\"}]}\n"
	if err := os.WriteFile(f, []byte(learned), 0o644); err != nil {
		t.Fatal(err)
	}
	e := entry{Name: "gizmo-webhook", Repository: "github.com/example/gizmo", Groups: []string{"example.com"}, Source: "mirror", Mirror: "example+gizmo",
		Tags:          tagFilter{Pattern: `^v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.1.0"},
		Paths:         []pathSpec{{From: "v1.0.0", Dir: pathList{"crds"}}},
		Webhooks:      &webhookSpec{Manifest: pathList{file}},
		MutationsOnly: true,
	}
	if err := e.validate(); err == nil || !strings.Contains(err.Error(), "mutationsOnly needs") {
		t.Errorf("mutationsOnly without a module: %v", err)
	}
	e.Webhooks.Module = "example.com/gizmo"
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	files, err := generateMirror(&e, newMirror(git), learnedDir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := operators.ParseIndex("index.yaml", files["index.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range ix.Releases {
		p, err := operators.ParseProfile(r.Profile, files[r.Profile+".yaml"])
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, res := range p.Resources {
			kinds = append(kinds, fmt.Sprintf("%s webhook=%s defaults=%d mutations=%d", res.Kind, res.Webhook, len(res.Defaults), len(res.Mutations)))
		}
		state, _ := operators.WebhookState(p, r.Mutations)
		got[r.Version] = strings.Join(kinds, "; ") + " (" + state + ")"
	}
	want := map[string]string{
		"v1.0.0": "Gizmo webhook=mgizmo defaults=0 mutations=0 (unknown)",
		"v1.1.0": "Gizmo webhook=mgizmo defaults=0 mutations=1 (learned)",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("profiles:\n got %v\nwant %v", got, want)
	}
	if !strings.HasPrefix(ix.Source, "github.com/example/gizmo config/webhook/manifests.yaml, the mutations learned from example.com/gizmo") {
		t.Errorf("index source: %s", ix.Source)
	}
}
