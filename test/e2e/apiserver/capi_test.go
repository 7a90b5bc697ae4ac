package apiserver

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestClusterAPIWebhook: Cluster API's defaulting webhooks (the core's, the
// kubeadm control plane's and the kubeadm bootstrap provider's) as the
// release's own SetupWebhookWithManager registers them, from the module
// sigs.k8s.io/cluster-api (test/e2e/webhook-capi), learned and checked on
// the release's own templates and objects of the suite's
// (webhookOperator.run).
func TestClusterAPIWebhook(t *testing.T) { clusterAPI.run(t) }

// clusterAPI: the three controllers' mutating webhooks under one operator,
// registered from each controller's config/webhook/manifests.yaml.
var clusterAPI = &webhookOperator{
	name:     "capi",
	module:   "sigs.k8s.io/cluster-api",
	operator: "cluster-api",
	// The core's under core/ from v1.14, under config/ before.
	crds: []string{"core/config/crd/bases/*.yaml", "config/crd/bases/*.yaml", "controlplane/kubeadm/config/crd/bases/*.yaml",
		"bootstrap/kubeadm/config/crd/bases/*.yaml"},
	// The templates of the Docker test provider and the bases of the
	// release's end-to-end cluster templates, in its test module
	// (sigs.k8s.io/cluster-api/test at the same version), with clusterctl's
	// variables set.
	samplesModule: "sigs.k8s.io/cluster-api/test",
	samples:       []string{"infrastructure/docker/templates/*.yaml", "e2e/data/infrastructure-docker/main/bases/*.yaml"},
	sampleVars: map[string]string{"CLUSTER_NAME": "sample", "NAMESPACE": "default", "KUBERNETES_VERSION": "v1.34.1",
		"CONTROL_PLANE_MACHINE_COUNT": "1", "WORKER_MACHINE_COUNT": "2", "DOCKER_SERVICE_CIDRS": "10.128.0.0/12",
		"DOCKER_POD_CIDRS": "192.168.0.0/16", "DOCKER_SERVICE_DOMAIN": "cluster.local", "CNI_RESOURCES": "{}"},
	groups: []string{"cluster.x-k8s.io/v1beta2", "controlplane.cluster.x-k8s.io/v1beta2", "bootstrap.cluster.x-k8s.io/v1beta2",
		"addons.cluster.x-k8s.io/v1beta2", "runtime.cluster.x-k8s.io/v1beta2"},
	objects: "objects.yaml",
	manifests: []string{"core/config/webhook/manifests.yaml", "config/webhook/manifests.yaml", "controlplane/kubeadm/config/webhook/manifests.yaml",
		"bootstrap/kubeadm/config/webhook/manifests.yaml"},
	kubeconfig: true,
	probe: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
		"metadata": map[string]any{"name": "probe"},
		"spec": map[string]any{"clusterName": "probe", "bootstrap": map[string]any{"dataSecretName": "probe"},
			"infrastructureRef": map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachine", "name": "probe"}},
	},
	probed: func(o *unstructured.Unstructured) bool {
		return o.GetLabels()["cluster.x-k8s.io/cluster-name"] == "probe"
	},
	learned: func(t *testing.T, stdout string, _ learnReport, _ map[string]string) {
		for _, p := range []string{".spec.replicas", ".spec.rollout.strategy.rollingUpdate.maxSurge", ".spec.checks.nodeStartupTimeoutSeconds", ".spec.strategy"} {
			if !strings.Contains(stdout, "path: "+p+"\n") {
				t.Errorf("not learned: %s", p)
			}
		}
	},
	metadata: true,
	notFilled: []notFilled{
		{path: `^\.metadata\.labels(\.cluster\.x-k8s\.io/cluster-name|\["cluster\.x-k8s\.io/cluster-name"\])?$`, reason: "the cluster's name, copied from .spec.clusterName: no mutation rule copies a field"},
		{path: `^\.spec\.(selector\.matchLabels|template\.metadata(\.labels)?)(\.cluster\.x-k8s\.io/(cluster-name|deployment-name|set-name))?$`, reason: "the cluster's or the object's own name, copied into the selector and the template's labels: no mutation rule copies a field"},
		{path: `\.spec\.replicas$`, reason: "a MachineSet's, MachineDeployment's or MachinePool's replicas follow the autoscaler's min-size annotation, and on update the old object"},
		{path: `\.spec\.topology\.variables`, reason: "a managed topology's variables are defaulted from the ClusterClass read from the cluster"},
		{path: `\.version$`, rewrite: true, reason: "a Kubernetes version written without the leading v (1.34.1) is stored with it (v1.34.1): write it so in Git"},
	},
	// v1.14.0 (go.mod) on every run; the other releases (a go.vV.mod
	// each) with E2E_CAPI_RELEASES: exported wrappers over
	// internal/webhooks (build tag wrappers), and before v1.12 MachinePool's
	// and the IPAM webhooks from exp/ (expwebhooks). Those the proxy
	// refuses build from their source at the tag.
	releases: modfileReleases("capi", func(v string) string {
		if minorOf(v) < 12 {
			return "wrappers,expwebhooks"
		}
		return "wrappers"
	}),
}
