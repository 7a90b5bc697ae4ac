package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Options.Limits bound every kind of source, and the documents of all the
// files of one render together.
func TestMaxDocumentsReachesEverySource(t *testing.T) {
	cm := "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n"
	three := strings.Join([]string{strings.Replace(cm, "%d", "1", 1), strings.Replace(cm, "%d", "2", 1), strings.Replace(cm, "%d", "3", 1)}, "")
	for name, files := range map[string]map[string]string{
		"directory":        {"cms.yaml": three},
		"directory, split": {"a.yaml": strings.Replace(cm, "%d", "1", 1), "b.yaml": strings.Replace(cm, "%d", "2", 1), "c.yaml": strings.Replace(cm, "%d", "3", 1)},
		"helm":             {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "templates/cms.yaml": three},
		"helm, split":      {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "templates/a.yaml": strings.Replace(cm, "%d", "1", 1), "templates/b.yaml": strings.Replace(cm, "%d", "2", 1), "templates/c.yaml": strings.Replace(cm, "%d", "3", 1)},
		"kustomize":        {"kustomization.yaml": "resources: [cms.yaml]\n", "cms.yaml": three},
		"kustomize helmCharts": {"kustomization.yaml": "helmCharts:\n- {name: c, releaseName: r}\n",
			"charts/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "charts/c/templates/cms.yaml": three},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, content := range files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opt := Options{Dir: dir, Limits: manifest.Limits{MaxDocuments: 3}, Helm: settings.Helm{ReleaseName: "r"}}
			if objs := render(t, opt); len(objs) != 3 {
				t.Fatalf("%d objects", len(objs))
			}
			opt.Limits.MaxDocuments = 2
			renderErr(t, opt, "more than 2 documents", "CMP_DEFAULTS_MAX_DOCUMENTS")
		})
	}
}
