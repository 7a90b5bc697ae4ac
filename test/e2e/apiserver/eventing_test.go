package apiserver

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// knativeEventing: Knative Eventing's core defaulting webhook
// (knative.dev/pkg's defaulting admission controller over eventing's
// SetDefaults), registered from the release's
// config/core/webhooks/defaulting.yaml with the rules its reconciler
// writes at run time. Release 1.N.P is the module's v0.(N+27).P.
var knativeEventing = &webhookOperator{
	name:      "eventing",
	module:    "knative.dev/eventing",
	operator:  "knative-eventing",
	crds:      []string{"config/core/resources/*.yaml"},
	samples:   []string{"docs/sink/*.yaml", "config/tools/*/*.yaml"},
	groups:    []string{"eventing.knative.dev", "messaging.knative.dev", "flows.knative.dev", "sources.knative.dev", "sinks.knative.dev"},
	objects:   "objects.yaml",
	manifests: []string{"config/core/webhooks/defaulting.yaml"},
	probe: map[string]any{
		"apiVersion": "eventing.knative.dev/v1", "kind": "Broker",
		"metadata": map[string]any{"name": "probe"},
	},
	probed: func(o *unstructured.Unstructured) bool {
		return o.GetAnnotations()["eventing.knative.dev/broker.class"] != ""
	},
	// The defaults of a default installation's ConfigMaps and the types'
	// own: learned as fixed values.
	learned: eventingLearned(`.metadata.annotations["eventing.knative.dev/broker.class"]`, ".spec.config", ".spec.delivery",
		".spec.filter", ".spec.channelTemplate", ".spec.schedule", ".spec.mode", ".spec.serviceAccountName"),
	notFilled: eventingNotFilled,
	metadata:  true,
	// Older releases define fewer kinds (no RequestReply before v1.17, no
	// JobSink or EventPolicy before v1.15).
	releaseKinds: true,
	// v1.22.2 (go.mod) on every run; the other releases (a go.vV.mod
	// each) with E2E_EVENTING_RELEASES. The build tag types1.N
	// (webhook-eventing/types.go) gives the types and conversions of the
	// release's cmd/webhook where they differ from v1.20's. Those the proxy
	// refuses build from their source at the tag (v1.21.4 also with the
	// knative.dev/pkg its vendor/ holds; scripts/webhook-sources.sh).
	// The bounds are module minors: v0.(N+27) is release line v1.N.
	releases: modfileReleases("eventing", tagsByMinor("", below{38, "types1.0"}, below{42, "types1.11"},
		below{44, "types1.15"}, below{45, "types1.17"}, below{47, "types1.18"})),
	release: knativeModuleRelease,
	// Before v1.2 the default installation's config-br-defaults gives a
	// Broker no delivery.
	variant: func(release string) *webhookOperator {
		if release != "newest" && minorOf(release)-27 < 2 {
			return knativeEventingBefore12
		}
		return nil
	},
}

// knativeEventingBefore12 is knativeEventing without a Broker's delivery
// among the paths its learning must find; made in init because
// knativeEventing's variant names it.
var knativeEventingBefore12 *webhookOperator

func init() {
	v := *knativeEventing
	v.variant = nil
	v.learned = eventingLearned(`.metadata.annotations["eventing.knative.dev/broker.class"]`, ".spec.config",
		".spec.filter", ".spec.channelTemplate", ".spec.schedule", ".spec.mode", ".spec.serviceAccountName")
	knativeEventingBefore12 = &v
}

// eventingLearned checks that learning found a rule at each path and
// learned no value that follows the request: identities follow the
// requester and a reference's namespace the object's.
func eventingLearned(paths ...string) func(*testing.T, string, learnReport, map[string]string) {
	return func(t *testing.T, stdout string, _ learnReport, _ map[string]string) {
		hasLearned(t, stdout, paths...)
		for _, s := range []string{"/creator", "/lastModifier", "eventing-learn"} {
			if strings.Contains(stdout, s) {
				t.Errorf("learned a value that follows the request (%s):\n%s", s, stdout)
			}
		}
	}
}

// knativeModuleRelease is the Knative release 1.N.P of a Knative module's
// version v0.(N+27).P (the git tags knative-v1.N.P and v0.(N+27).P name
// the same commit).
func knativeModuleRelease(v string) string {
	var minor, patch int
	if _, err := fmt.Sscanf(v, "v0.%d.%d", &minor, &patch); err != nil || minor < 27 {
		return v
	}
	return fmt.Sprintf("v1.%d.%d", minor-27, patch)
}

// eventingNotFilled: what Knative Eventing's webhook writes from the
// request (docs/webhooks.md lists the same with the same reasons).
var eventingNotFilled = []notFilled{
	{path: `\.ref\.namespace$|\.(brokerRef|channel|reference|subject)\.namespace$`, reason: "a reference without a namespace gets the object's own namespace, which the request decides (Argo CD's destination namespace); write the namespace in Git"},
	{path: `\.containers\[\]\.name$`, reason: "a ContainerSource's unnamed container is named after the object and its index (NAME-0); write the name in Git"},
	{path: `\.(template|job)\.metadata$`, reason: "an embedded pod template's or Job's metadata: {creationTimestamp: null}, which the webhooks built with k8s.io/apimachinery before v0.34 (v1.20.3 and older) write; a null no mutation fills (Argo CD compares past it)"},
	{path: `\.podFailurePolicy\.rules\[\]\.(onExitCodes|onPodConditions)$`, reason: "a pod failure policy rule's other matcher: null, which the webhooks built with k8s.io/api before v0.31 (v1.16.7, v1.15.5) write; a null no mutation fills (Argo CD's structured-merge diff shows it)"},
	{path: `^\.metadata\.labels\["eventing\.knative\.dev/broker"\]$`, reason: "a Trigger's (and RequestReply's) broker label copies spec.broker (brokerRef.name); write the label in Git"},
	{path: `^\.metadata\.annotations\["[a-z.]+/(creator|lastModifier)"\]$`, reason: "the requesting user: identities, never filled"},
}

// TestEventingWebhook: the webhook of each release, learned and checked on
// the operator's own examples (webhookOperator.run).
func TestEventingWebhook(t *testing.T) { knativeEventing.run(t) }
