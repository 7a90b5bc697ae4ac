package argocd

import (
	"reflect"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

func TestSourceOptions(t *testing.T) {
	start := render.Options{Dir: "/repo/app", ReleaseName: "app"}
	if got := SourceOptions(start, nil); !reflect.DeepEqual(got, start) {
		t.Errorf("no Application source: options changed to %+v", got)
	}
	src := &Source{App: "{{name}}", Namespace: "ns", Include: "*.yaml", ValueFiles: []string{"v.yaml"},
		Parameters: []HelmParameter{{Name: "a", Value: "1"}, {Name: "b", Value: "2", ForceString: true}}}
	got := SourceOptions(start, src)
	if got.ReleaseName != "app" || got.Namespace != "ns" || got.Include != "*.yaml" || !reflect.DeepEqual(got.ValuesFiles, []string{"v.yaml"}) ||
		!reflect.DeepEqual(got.Set, []string{"a=1"}) || !reflect.DeepEqual(got.SetString, []string{"b=2"}) {
		t.Errorf("templated Application name: %+v", got)
	}
	if got := SourceOptions(start, &Source{App: "shop"}); got.ReleaseName != "shop" {
		t.Errorf("release name %q, want the Application's name, as Argo CD defaults it", got.ReleaseName)
	}
	if got := SourceOptions(start, &Source{App: "shop", ReleaseName: "r"}); got.ReleaseName != "r" {
		t.Errorf("release name %q, want the one the Application sets", got.ReleaseName)
	}
}

func TestAddConfigMaps(t *testing.T) {
	var f Found
	if err := f.addConfigMaps("cm.yaml", []manifest.Object{{Data: map[string]any{"kind": "Secret"}}}); err == nil {
		t.Error("a file without a ConfigMap is accepted")
	}
}
