package apiserver

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// tektonPipelines: Tekton Pipelines' defaulting webhook (knative.dev/pkg's
// defaulting admission controller over the pipeline's SetDefaults),
// registered from the release's config/500-webhooks.yaml with the rules its
// reconciler writes at run time.
var tektonPipelines = &webhookOperator{
	name:      "tekton",
	module:    "github.com/tektoncd/pipeline",
	operator:  "tekton-pipelines",
	crds:      []string{"config/300-crds/*.yaml"},
	samples:   []string{"examples/v1/taskruns/*.yaml", "examples/v1/pipelineruns/*.yaml"},
	groups:    []string{"tekton.dev"},
	objects:   "objects.yaml",
	manifests: []string{"config/500-webhooks.yaml"},
	probe: map[string]any{
		"apiVersion": "tekton.dev/v1", "kind": "TaskRun",
		"metadata": map[string]any{"name": "probe"},
		"spec":     map[string]any{"taskRef": map[string]any{"name": "build"}},
	},
	probed: func(o *unstructured.Unstructured) bool {
		v, _, _ := unstructured.NestedString(o.Object, "spec", "timeout")
		return v != ""
	},
	learned: func(t *testing.T, stdout string, report learnReport, _ map[string]string) {
		// The run defaults and the kind of a task named by reference; a
		// parameter's type follows its default's JSON type, which no rule
		// says: reported, with the rule that covers it.
		hasLearned(t, stdout, ".spec.timeout", ".spec.timeouts.pipeline", ".spec.serviceAccountName", ".spec.tasks[].taskRef | select(.name != null) | .kind")
		found := map[string]bool{}
		for _, f := range report.NotLearned {
			if f.IgnoreDifferences != nil {
				found[f.Kind+" "+f.Path] = true
			}
		}
		for _, p := range []string{"Task .spec.params[].type", "Pipeline .spec.params[].type"} {
			if !found[p] {
				t.Errorf("%s is not reported as not learned, with the rule that covers it", p)
			}
		}
	},
	metadata: true,
	notFilled: []notFilled{
		{path: `\.params\[\]\.type$`, reason: "a parameter's type follows its default's JSON type, which no mutation rule can say; write the type in Git"},
		{path: `\.properties\.[^.]+\.type$`, reason: "the type of each property of an object parameter or result: learned for the property names the inputs use only; write it in Git"},
		{path: `taskSpec\.spec$`, reason: "an embedded task's spec: null, written by the webhook's Go types; no mutation fills a null"},
		{path: `\.timeout$`, rewrite: true, reason: "a duration written otherwise than Go prints it (30m, 1h) is stored as Go prints it (30m0s, 1h0m0s): write it so in Git"},
	},
	// Every checked release: v1.15.0 (go.mod) and a go.vV.mod each for
	// v1.0.0 to v1.14.1 (those the proxy does not serve from their source at
	// the tag: scripts/webhook-sources.sh); cmd/webhook's types and
	// conversions are the same at each of them.
	releases: modfileReleases("tekton", func(string) string { return "" }),
}

// TestTektonWebhook: the webhook of each release, learned and checked on
// the operator's own examples (webhookOperator.run).
func TestTektonWebhook(t *testing.T) { tektonPipelines.run(t) }
