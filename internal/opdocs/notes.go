package opdocs

import "bytes"

// notes holds, per operator, what its mutating webhooks are known to write
// from reading their code, where the shipped profiles do not (yet) learn it:
// what depends on the request, the operator's configuration or cluster
// state, and settings of the operator that change what is written. It is
// written by hand and placed after the list of webhooks.
var notes = map[string]string{
	"kserve": "The InferenceService defaulter's defaults of v0.15.0 to v0.20.0 are learned from each release's code, with the default" +
		" installation's `inferenceservice-config` (the ConfigMap each release ships in `config/configmap`), which it" +
		" reads from the cluster on every request: a transformer's and an explainer's first container, and a" +
		" predictor's containers when it has no `model`, are named `kserve-container` and get the ConfigMap's resource" +
		" defaults (requests and limits `cpu: \"1\"`, `memory: 2Gi`, each where not written); an ART explainer gets" +
		" `runtimeVersion: latest` and the same resources; a Triton model (from v0.20.0 also a vLLM model) gets `protocolVersion: v2`; a model" +
		" gets the Go round trip's `name: \"\"` and `resources: {}`. The deprecated deployment modes `RawDeployment` and" +
		" `Serverless` are stored as `Standard` and `Knative` (v0.17.0 on): `fill` warns where you wrote them. What depends on the" +
		" ConfigMap and what the defaulter writes that is not filled are listed below. The LLMInferenceService" +
		" defaulters (v0.19.0 on) are not learned, nor are v0.7.0 to v0.14.1: their webhook defaults are" +
		" unknown, so `render`, `fill` and `explain` warn for those kinds and releases, and `audit` keeps rules on them.\n",
	"openkruise": "The workload defaulters set fields of their kinds: `replicas`, `revisionHistoryLimit` and the update" +
		" strategy (CloneSet: `type: ReCreate`, `partition: 0`, `maxUnavailable: 20%`, `maxSurge: 0`; Advanced DaemonSet:" +
		" `burstReplicas: 250` and the rolling update's fields), and those of CloneSet, Advanced StatefulSet, BroadcastJob," +
		" AdvancedCronJob and UnitedDeployment also write Kubernetes' Pod defaults into the pod template (`restartPolicy`," +
		" `dnsPolicy`, `schedulerName`, each container's `terminationMessagePath` and `imagePullPolicy`, ...) and" +
		" PersistentVolumeClaim defaults into `volumeClaimTemplates`, on create and on an update that changes the template." +
		" The Advanced DaemonSet defaulter does not default its pod template. Learned for v1.6.2 to v1.9.0 (CloneSet, Advanced" +
		" StatefulSet, Advanced DaemonSet); the other kinds' webhooks are not.\n\n" +
		"**The `TemplateNoDefaults` feature gate.** OpenKruise's GitOps guide recommends turning it on" +
		" (`featureGates: TemplateNoDefaults=true` in the chart's values, or `--feature-gates` on the manager) because" +
		" the pod-template defaults make Argo CD show the template OutOfSync. With the gate on, the webhooks no longer" +
		" default pod templates or claim templates; the other fields above are still set. The shipped profile fills what" +
		" a default installation adds (the gate off); with the gate on, learn a profile that replaces the release" +
		" ([below](#what-depends-on-the-operators-configuration)), or the template fields it fills differ from what" +
		" the cluster stores.\n",
}

// notesSection writes the hand-written notes of op, if any.
func notesSection(b *bytes.Buffer, op string) {
	n, ok := notes[op]
	if !ok {
		return
	}
	b.WriteString("\n## What the webhooks write\n\n")
	b.WriteString(n)
}
