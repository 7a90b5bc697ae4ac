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
	name:          "capi",
	module:        "sigs.k8s.io/cluster-api",
	operator:      "cluster-api",
	crds:          capiCRDs,
	samplesModule: "sigs.k8s.io/cluster-api/test",
	samples:       capiSamples,
	sampleVars:    capiSampleVars,
	groups: []string{"cluster.x-k8s.io/v1beta2", "controlplane.cluster.x-k8s.io/v1beta2", "bootstrap.cluster.x-k8s.io/v1beta2",
		"addons.cluster.x-k8s.io/v1beta2", "runtime.cluster.x-k8s.io/v1beta2"},
	objects:    "objects.yaml",
	manifests:  capiManifests,
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
	learned:   learnedPaths(".spec.replicas", ".spec.rollout.strategy.rollingUpdate.maxSurge", ".spec.checks.nodeStartupTimeoutSeconds", ".spec.strategy"),
	metadata:  true,
	notFilled: capiNotFilled,
	// v1.14.0 (go.mod) on every run; the other releases (a go.vV.mod
	// each) with E2E_CAPI_RELEASES: exported wrappers over
	// internal/webhooks (build tag wrappers), and before v1.12 MachinePool's
	// and the IPAM webhooks from exp/ (expwebhooks); before v1.11 the
	// v1beta1 packages (v1beta1), before v1.10 the ClusterResourceSet's
	// under exp/addons (expaddons), before v1.9 no MachineDrainRule
	// (nodrainrule). Those the proxy refuses build from their source at
	// the tag.
	releases: modfileReleases("capi", tagsByMinor("wrappers", below{9, "v1beta1,expaddons,nodrainrule"},
		below{10, "v1beta1,expaddons"}, below{11, "v1beta1"}, below{12, "wrappers,expwebhooks"})),
	// The releases before v1.11 store v1beta1: their own seeds,
	// variations, objects, groups and probe.
	variant: before(11, &clusterAPIV1beta1),
}

// clusterAPIV1beta1: the releases before v1.11 (build tag v1beta1, with
// the packages of each line: setup_v1beta1.go), learned from v1beta1
// objects (testdata/webhooks/capi-v1beta1), in two namespaces: their
// webhooks copy the object's namespace into the references that name
// none. It is clusterAPI with those fields changed, made in init because
// clusterAPI's variant names it.
var clusterAPIV1beta1 *webhookOperator

func init() {
	v := *clusterAPI
	v.variant = nil
	v.testdata = "capi-v1beta1"
	v.namespaces = []string{"capi-other"}
	v.groups = []string{"cluster.x-k8s.io/v1beta1", "controlplane.cluster.x-k8s.io/v1beta1", "bootstrap.cluster.x-k8s.io/v1beta1",
		"addons.cluster.x-k8s.io/v1beta1", "runtime.cluster.x-k8s.io/v1alpha1"}
	v.probe = map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine",
		"metadata": map[string]any{"name": "probe"},
		"spec": map[string]any{"clusterName": "probe", "bootstrap": map[string]any{"dataSecretName": "probe"},
			"infrastructureRef": map[string]any{"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1", "kind": "DockerMachine", "name": "probe"}},
	}
	v.learned = func(t *testing.T, stdout string, _ learnReport, _ map[string]string) {
		hasLearned(t, stdout, ".spec.replicas", ".spec.strategy", ".spec.minReadySeconds", ".spec.nodeStartupTimeout", ".spec.format")
		for _, l := range strings.Split(stdout, "\n") {
			if strings.Contains(l, "path: ") && strings.HasSuffix(l, ".namespace") {
				t.Errorf("learned a namespace the webhooks copy from the object: %s", strings.TrimSpace(l))
			}
		}
	}
	v.notFilled = append([]notFilled{
		{path: `\.(infrastructureRef|controlPlaneRef|configRef|remediationTemplate|ref)\.namespace$`, reason: "the object's own namespace, copied into a reference that names none: no mutation rule copies a field"},
		{path: `(\.timeout|Timeout)$`, rewrite: true, reason: "a duration is stored in Go's form (300s as 5m0s, 5m as 5m0s): write it so in Git"},
		{path: `^\.spec\..*\.metadata\.annotations$`, reason: "annotations written null in a template's metadata are dropped by the webhooks' Go types"},
	}, capiNotFilled...)
	clusterAPIV1beta1 = &v
}

// What both descriptions share: the three controllers' CRDs (the core's
// under core/ from v1.14, under config/ before) and webhook manifests, the
// templates of the Docker test provider and the bases of the release's
// end-to-end cluster templates, in its test module
// (sigs.k8s.io/cluster-api/test at the same version), with clusterctl's
// variables set, and the fields not filled.
var (
	capiCRDs = []string{"core/config/crd/bases/*.yaml", "config/crd/bases/*.yaml", "controlplane/kubeadm/config/crd/bases/*.yaml",
		"bootstrap/kubeadm/config/crd/bases/*.yaml"}
	capiManifests = []string{"core/config/webhook/manifests.yaml", "config/webhook/manifests.yaml", "controlplane/kubeadm/config/webhook/manifests.yaml",
		"bootstrap/kubeadm/config/webhook/manifests.yaml"}
	capiSamples    = []string{"infrastructure/docker/templates/*.yaml", "e2e/data/infrastructure-docker/main/bases/*.yaml"}
	capiSampleVars = map[string]string{"CLUSTER_NAME": "sample", "NAMESPACE": "default", "KUBERNETES_VERSION": "v1.34.1",
		"CONTROL_PLANE_MACHINE_COUNT": "1", "WORKER_MACHINE_COUNT": "2", "DOCKER_SERVICE_CIDRS": "10.128.0.0/12",
		"DOCKER_POD_CIDRS": "192.168.0.0/16", "DOCKER_SERVICE_DOMAIN": "cluster.local", "CNI_RESOURCES": "{}"}
	capiNotFilled = []notFilled{
		{path: `^\.metadata\.labels(\.cluster\.x-k8s\.io/cluster-name|\["cluster\.x-k8s\.io/cluster-name"\])?$`, reason: "the cluster's name, copied from .spec.clusterName: no mutation rule copies a field"},
		{path: `^\.spec\.(selector\.matchLabels|template\.metadata(\.labels)?)(\.cluster\.x-k8s\.io/(cluster-name|deployment-name|set-name))?$`, reason: "the cluster's or the object's own name, copied into the selector and the template's labels: no mutation rule copies a field"},
		{path: `\.spec\.replicas$`, reason: "a MachineSet's, MachineDeployment's or MachinePool's replicas follow the autoscaler's min-size annotation, and on update the old object"},
		{path: `\.spec\.topology\.variables`, reason: "a managed topology's variables are defaulted from the ClusterClass read from the cluster"},
		{path: `\.version$`, rewrite: true, reason: "a Kubernetes version written without the leading v (1.34.1) is stored with it (v1.34.1): write it so in Git"},
	}
)
