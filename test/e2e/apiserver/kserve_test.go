package apiserver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestKServeWebhook: KServe's InferenceService defaulting webhook as its
// manager registers it, from the module github.com/kserve/kserve
// (test/e2e/webhook-kserve), reading the release's own
// inferenceservice-config from the API server, learned and checked on the
// release's sample InferenceServices and objects of the suite's
// (webhookOperator.run).
func TestKServeWebhook(t *testing.T) { kserve.run(t) }

// kserve: the InferenceService defaulter, registered from the release's
// config/webhook/manifests.yaml (its pod mutator is not served, so not
// registered); the LLMInferenceService defaulters (cmd/llmisvc) are not
// served: unknown.
var kserve = &webhookOperator{
	name:     "kserve",
	module:   "github.com/kserve/kserve",
	operator: "kserve",
	// Under config/crd/full from v0.13, config/crd before.
	crds: []string{"config/crd/full/serving.kserve.io_*.yaml", "config/crd/full/*/serving.kserve.io_*.yaml", "config/crd/serving.kserve.io_*.yaml"},
	// The InferenceServices of docs/samples (the only kind of v1beta1):
	// the other kinds' webhooks are validators, or not served.
	samples: []string{"docs/samples/*/*.yaml", "docs/samples/*/*/*.yaml", "docs/samples/*/*/*/*.yaml", "docs/samples/*/*/*/*/*.yaml"},
	groups:  []string{"serving.kserve.io/v1beta1"},
	objects: "objects.yaml",
	// The default installation's configuration, which the defaulter reads
	// on every request.
	configs:    []string{"config/configmap/inferenceservice.yaml"},
	manifests:  []string{"config/webhook/manifests.yaml"},
	kubeconfig: true,
	probe: map[string]any{
		"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
		"metadata": map[string]any{"name": "probe"},
		"spec":     map[string]any{"predictor": map[string]any{"sklearn": map[string]any{"storageUri": "gs://kfserving-examples/models/sklearn/1.0/model"}}},
	},
	probed: func(o *unstructured.Unstructured) bool {
		v, _, _ := unstructured.NestedString(o.Object, "spec", "predictor", "model", "modelFormat", "name")
		return v == "sklearn"
	},
	// Triton's and vLLM's protocol version, the components' first
	// containers' name and the default installation's resources.
	learned: learnedPaths(".spec.predictor.model.protocolVersion", ".spec.transformer.containers[].name",
		".spec.transformer.containers[].resources", ".spec.predictor.containers[].resources", ".spec.explainer.art.runtimeVersion"),
	metadata: true,
	notFilled: []notFilled{
		{path: `^\.metadata\.annotations(\.modelFormat|\["modelFormat"\])?$`, reason: "the modelFormat annotation, copied from .spec.predictor.model.modelFormat.name: no mutation rule copies a field"},
		{path: `^\.spec\.predictor\.(model|sklearn|xgboost|tensorflow|pytorch|triton|onnx|huggingface|pmml|lightgbm|paddle)$`, reason: "a predictor written in a framework's field (predictor.sklearn, ...) is moved to predictor.model with that model format: a value written, moved; write predictor.model in Git"},
		{path: `^\.spec\.(predictor|transformer|explainer)\.containers\[\]\.name$`, rewrite: true, reason: "a transformer's or explainer's first container, and a predictor's only one, is named kserve-container whatever its name (fill warns for the names the learner wrote only): write that name in Git"},
		{path: `^\.metadata\.annotations(\.serving\.kserve\.io/deploymentMode|\["serving\.kserve\.io/deploymentMode"\])$`, rewrite: true, reason: "a deprecated deployment mode (RawDeployment, Serverless) is stored as its new name (Standard, Knative): fill warns; write the new name in Git"},
		{path: `^\.spec\.(predictor|transformer|explainer)\.containers\[\]\.resources$`, reason: "the webhook defaults the resources of a component's first container only, and a rule cannot name a list item by its position: the whole-resources rules hold under conditions of the learner's inputs (one explainer container; a Triton or vLLM model beside a transformer), none for a custom predictor, so as not to fill a second container (a proxy) that the webhook leaves alone; write the first container's resources in Git"},
		{path: `\.resources\.(limits|requests)\.[^.]+$`, rewrite: true, reason: "a quantity written as a number (cpu: 1) is stored as a string (\"1\"): the webhook's Go types; write it quoted in Git"},
		{path: `^\.spec\.explainer\.(alibi|aix)\.(name|runtimeVersion|resources(\..+)?)$`, reason: "the Alibi (before v0.13) and AIX (before v0.11) explainers are not among the learner's inputs: their container's name kserve-container, runtimeVersion latest and the installation's resources are not filled; write them in Git"},
		{path: `^\.spec\.predictor\.(sklearn|xgboost|tensorflow|pytorch|triton|onnx|huggingface|pmml|lightgbm|paddle)\.(name|resources)$`, reason: "in the ModelMesh deployment mode a framework's field stays and gets the Go round trip's name: \"\" and resources: {}: ModelMesh is not among the learner's inputs"},
	},
	// v0.20.0 (go.mod) on every run: its build costs 210 CPU-s on an
	// empty build cache; the other releases (a go.vV.mod each) with
	// E2E_KSERVE_RELEASES; before v0.14 with build tag typedefault (the
	// type defaults itself: webhook-kserve/register_*.go), before v0.12
	// with oldmanager too (controller-runtime's older options:
	// manager_*.go), before v0.10 with logr0 (logr before v1: logs_*.go).
	releases: modfileReleases("kserve", tagsByMinor("", below{10, "typedefault,oldmanager,logr0"},
		below{12, "typedefault,oldmanager"}, below{14, "typedefault"})),
	// Before v0.11.2 a model's protocol version is not defaulted (only a
	// legacy predictor's, moved to predictor.model).
	variant: func(release string) *webhookOperator {
		var minor, patch int
		fmt.Sscanf(release, "v0.%d.%d", &minor, &patch)
		if release != "newest" && minor < 9 {
			return kserveBefore09
		}
		if release != "newest" && (minor < 11 || minor == 11 && patch < 2) {
			return kserveBefore0112
		}
		return nil
	},
}

// kserveBefore0112 is kserve without the protocol version among the
// paths its learning must find; made in init because kserve's variant
// names it.
var kserveBefore0112 *webhookOperator

func init() {
	v := *kserve
	v.variant = nil
	v.learned = learnedPaths(".spec.transformer.containers[].name", ".spec.transformer.containers[].resources",
		".spec.predictor.containers[].resources", ".spec.explainer.art.runtimeVersion")
	kserveBefore0112 = &v
	// Before v0.9 a PyTorch model is labelled with TorchServe's service
	// envelope, kservev2 under protocol v2 (vary.yaml's last condition).
	v09 := v
	v09.learned = func(t *testing.T, stdout string, r learnReport, leftOut map[string]string) {
		v.learned(t, stdout, r, leftOut)
		if !strings.Contains(stdout, "          serviceEnvelope: kservev2\n") {
			t.Errorf("not learned: a PyTorch model's serviceEnvelope label under protocol v2")
		}
	}
	v09.notFilled = append(slices.Clone(v.notFilled), notFilled{path: `^\.metadata\.labels(\.serviceEnvelope|\.modelClass|\["(serviceEnvelope|modelClass)"\])$`,
		reason: "before v0.9 a predictor written in a framework's field gets, when it is moved to predictor.model, TorchServe's serviceEnvelope label (predictor.pytorch) or MLServer's modelClass label (predictor.sklearn or predictor.xgboost under protocol v2): no input writes those fields (a moved value is no default); write predictor.model in Git"})
	kserveBefore09 = &v09
}

// kserveBefore09 is kserveBefore0112 with the learn check asking for the
// PyTorch label too.
var kserveBefore09 *webhookOperator
