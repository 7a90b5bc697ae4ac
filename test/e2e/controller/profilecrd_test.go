package controller

import (
	"path/filepath"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit/profilecrd"
)

// crdFromProfile stands in for an operator's CRD: the kind's defaults from a
// shipped profile plus the fields the objects in objectFiles use
// (e2ekit/profilecrd).
func crdFromProfile(t tb, profileFile, kind, plural string, objectFiles ...string) *apiextv1.CustomResourceDefinition {
	t.Helper()
	return profilecrd.CRD(t, filepath.Join(repoRoot(), "profiles"), profileFile, kind, plural, readObjects(t, objectFiles...))
}

// scopedCRDFromProfile is crdFromProfile for a kind of the given scope.
func scopedCRDFromProfile(t tb, profileFile, kind, plural string, scope apiextv1.ResourceScope, objectFiles ...string) *apiextv1.CustomResourceDefinition {
	t.Helper()
	return profilecrd.ScopedCRD(t, filepath.Join(repoRoot(), "profiles"), profileFile, kind, plural, scope, readObjects(t, objectFiles...))
}
