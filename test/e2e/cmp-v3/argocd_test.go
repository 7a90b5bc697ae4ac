package e2e

// What differs between Argo CD releases; the rest of the harness is shared
// with test/e2e/cmp-v2.

import (
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

const argoCDVersion = "v3.6.1"

// clusterKubeVersion is the destination cluster's version as the
// application controller passes it to repo-server (major.minor); v3.4 and
// later turn it into KUBE_VERSION=1.34.0.
const clusterKubeVersion = "1.34"

// noRetry: repo-server disables the client's retry interceptor on
// client-streaming calls.
var noRetry = grpc_retry.Disable()

// newEnv is reposerver/repository.newEnv of Argo CD v3.6.1.
func newEnv(q request) *v1alpha1.Env {
	return &v1alpha1.Env{
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_NAME", Value: q.AppName},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_NAMESPACE", Value: q.Namespace},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_PROJECT_NAME", Value: q.Project},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_REVISION", Value: q.Revision},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_REVISION_SHORT", Value: shorten(q.Revision, 7)},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_REVISION_SHORT_8", Value: shorten(q.Revision, 8)},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_SOURCE_REPO_URL", Value: q.RepoURL},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_SOURCE_PATH", Value: q.Path},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_SOURCE_TARGET_REVISION", Value: q.TargetRev},
	}
}

func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// kubeVersionEnv is KUBE_VERSION as v3.6.1's getPluginEnvs computes it
// (parseKubeVersion).
func kubeVersionEnv(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	kv, err := k8sversion.ParseGeneric(v)
	if err != nil {
		return "", err
	}
	return kv.String(), nil
}

// splitYAML is how repo-server parses the CMP's manifests.
func splitYAML(b []byte) ([]*unstructured.Unstructured, error) { return kube.SplitYAML(b) }
