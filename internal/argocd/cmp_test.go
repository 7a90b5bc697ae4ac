package argocd

import (
	"reflect"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

func TestSettings(t *testing.T) {
	opts := func(src *Source) render.Options {
		h, d := Settings(src, "")
		o, err := render.NewOptions("/repo/app", "/repo", 0, manifest.Limits{}, h, d)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	start := opts(nil)
	if start.ReleaseName != "app" {
		t.Fatalf("release name %q, want the directory's", start.ReleaseName)
	}
	if got := opts(&Source{}); !reflect.DeepEqual(got, start) {
		t.Errorf("no Application source: options changed to %+v", got)
	}
	src := &Source{App: "{{name}}", Namespace: "ns", Include: "*.yaml", ValueFiles: []string{"v.yaml"},
		Parameters: []HelmParameter{{Name: "a", Value: "1"}, {Name: "b", Value: "2", ForceString: true}}}
	got := opts(src)
	if got.ReleaseName != "app" || got.Namespace != "ns" || got.Include != "*.yaml" || !reflect.DeepEqual(got.ValuesFiles, []string{"v.yaml"}) ||
		!reflect.DeepEqual(got.Set, []string{"a=1"}) || !reflect.DeepEqual(got.SetString, []string{"b=2"}) {
		t.Errorf("templated Application name: %+v", got)
	}
	if got := opts(&Source{App: "shop"}); got.ReleaseName != "shop" {
		t.Errorf("release name %q, want the Application's name, as Argo CD defaults it", got.ReleaseName)
	}
	if got := opts(&Source{App: "shop", ReleaseName: "r"}); got.ReleaseName != "r" {
		t.Errorf("release name %q, want the one the Application sets", got.ReleaseName)
	}
	if got := opts(&Source{App: "shop", SkipSchemaValidation: true}); !got.SkipSchemaValidation {
		t.Error("helm.skipSchemaValidation is not passed to the renderer")
	}
}

// The repo-server passes a kube version to Helm and to a plugin without
// its v and vendor suffix, and refuses one that is not major.minor[.patch].
func TestKubeVersion(t *testing.T) {
	for v, want := range map[string]string{"": "", "1.30": "1.30", "v1.30.4": "1.30.4", "v1.30.4-eks-1a2b3c4": "1.30.4", "v1.29.2+k3s1": "1.29.2", "1.28.3-gke.100": "1.28.3"} {
		if got, err := KubeVersion(v); err != nil || got != want {
			t.Errorf("KubeVersion(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
	for _, v := range []string{"1", "one", "v"} {
		if got, err := KubeVersion(v); err == nil {
			t.Errorf("KubeVersion(%q) = %q, want an error", v, got)
		}
	}
}

func TestAddConfigMaps(t *testing.T) {
	var f Found
	if err := f.addConfigMaps("cm.yaml", []manifest.Object{{Data: map[string]any{"kind": "Secret"}}}); err == nil {
		t.Error("a file without a ConfigMap is accepted")
	}
}
