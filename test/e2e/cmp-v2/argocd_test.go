package e2e

// What differs between Argo CD releases; the rest of the harness is shared
// with test/e2e/cmp-v3.

import (
	"github.com/argoproj/gitops-engine/pkg/utils/kube"
	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/retry"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v2/util/text"
)

const argoCDVersion = "v2.14.21"

// clusterKubeVersion is the destination cluster's version as the
// application controller passes it to repo-server (major.minor); v2.14
// passes it on as KUBE_VERSION=1.30.
const clusterKubeVersion = "1.30"

// noRetry: repo-server disables the client's retry interceptor on
// client-streaming calls.
var noRetry = grpc_retry.Disable()

// newEnv is reposerver/repository.newEnv of Argo CD v2.14.21 (no
// ARGOCD_APP_PROJECT_NAME yet).
func newEnv(q request) *v1alpha1.Env {
	return &v1alpha1.Env{
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_NAME", Value: q.AppName},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_NAMESPACE", Value: q.Namespace},
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

// kubeVersionEnv is KUBE_VERSION as v2.14.21's getPluginEnvs computes it.
func kubeVersionEnv(v string) (string, error) { return text.SemVer(v), nil }

// splitYAML is how repo-server parses the CMP's manifests.
func splitYAML(b []byte) ([]*unstructured.Unstructured, error) { return kube.SplitYAML(b) }
