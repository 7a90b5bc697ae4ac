package action

import (
	"testing"

	"sigs.k8s.io/kustomize/api/types"
)

// Image overrides read as 'kustomize edit set image' reads them.
func TestKustomizeImage(t *testing.T) {
	for in, want := range map[string]types.Image{
		"nginx:1.27":                         {Name: "nginx", NewTag: "1.27"},
		"nginx=registry.example.com/nginx:2": {Name: "nginx", NewName: "registry.example.com/nginx", NewTag: "2"},
		"registry:5000/app:v1":               {Name: "registry:5000/app", NewTag: "v1"},
		"app=app@sha256:abc":                 {Name: "app", NewName: "app", Digest: "sha256:abc"},
		"app":                                {Name: "app"},
	} {
		if got := kustomizeImage(in); got != want {
			t.Errorf("%q: got %+v, want %+v", in, got, want)
		}
	}
}
