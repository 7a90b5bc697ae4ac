package opdocs

import (
	"bytes"
	"fmt"
)

// unfilled is a field an operator's webhook writes that no profile fills,
// and why: its value depends on the request, the old object, another
// field of the object or what the cluster holds.
type unfilled struct{ kinds, path, why string }

// notFilled holds, per operator, the fields its webhooks write that are
// not prefillable (the API server suite checks that its samples differ
// from what the server stores at these fields only; audit keeps a rule on
// them).
var notFilled = map[string][]unfilled{
	"openkruise": {
		{"CloneSet, Advanced StatefulSet", `.spec.template.spec.initContainers[].imagePullPolicy`,
			"follows the image's tag (`IfNotPresent`, or `Always` for `latest` or no tag: Kubernetes' container default), which no mutation rule can say; write it in Git"},
		{"CloneSet, Advanced StatefulSet, Advanced DaemonSet", `.spec.template.metadata.creationTimestamp, .spec.volumeClaimTemplates[].metadata.creationTimestamp`,
			"`null`, written by the webhook's Go types; no mutation fills a null, and Argo CD compares past it"},
	},
	"knative-eventing": {
		{"every kind with a reference (`subscriber`, `reply`, `delivery.deadLetterSink`, `sink`, `filter`, `from[]`), Broker, EventType, SinkBinding",
			`.ref.namespace, .spec.config.namespace, .spec.reference.namespace, .spec.subject.namespace`,
			"a reference without a namespace gets the object's own, which the request decides (Argo CD's destination namespace): write it in Git"},
		{"Trigger, RequestReply", `.metadata.labels["eventing.knative.dev/broker"]`,
			"copies `spec.broker` (a RequestReply's `spec.brokerRef.name`), and replaces a label written otherwise: write it in Git with that value"},
		{"ContainerSource", `.spec.template.spec.containers[].name`,
			"an unnamed container is named after the object and its position (`NAME-0`): write the name in Git"},
		{"every kind", `.metadata.annotations["GROUP/creator"], .metadata.annotations["GROUP/lastModifier"]`,
			"the requesting user (Argo CD's service account, on every change of the spec; `GROUP` is the kind's API group): identities, never filled"},
		{"ContainerSource, JobSink (v1.20.3 and older)", `.spec.template.metadata, .spec.job.metadata, .spec.job.spec.template.metadata`,
			"`{creationTimestamp: null}`, a null the webhook's Go types write (`k8s.io/apimachinery` before v0.34): no mutation fills a null; Argo CD compares past it"},
		{"JobSink (v1.16.7, v1.15.5)", `.spec.job.spec.podFailurePolicy.rules[].onExitCodes, .spec.job.spec.podFailurePolicy.rules[].onPodConditions`,
			"`null` where a rule uses the other matcher, a null the webhook's Go types write (`k8s.io/api` before v0.31): no mutation fills a null; Argo CD's structured-merge diff shows it (its other diffs compare past it)"},
	},
	"kserve": {
		{"InferenceService", `.metadata.annotations.modelFormat`,
			"the predictor's model format (`.spec.predictor.model.modelFormat.name`), copied unless written: no mutation rule copies a field; write the annotation in Git"},
		{"InferenceService", `.spec.predictor.model`,
			"a predictor written in a framework's field (`predictor.sklearn`, `xgboost`, `tensorflow`, ...) is moved to `predictor.model` with that model format: a value you wrote, moved, so neither filled nor warned about; write `predictor.model` in Git"},
		{"InferenceService", `.spec.predictor.containers[].name, .spec.transformer.containers[].name, .spec.explainer.containers[].name`,
			"the first container of a transformer or explainer, and a predictor's only one, is renamed `kserve-container` whatever its name; `fill` warns only for the names the learner wrote: write `kserve-container` in Git"},
		{"InferenceService", `.metadata.labels["internal.serving.kserve.io/localmodel"], .metadata.annotations["internal.serving.kserve.io/localmodel-pvc-name"]`,
			"set (with `localmodel-namespace` and `localmodel-sourceuri`) when a `LocalModelCache` or `LocalModelNamespaceCache` in the cluster matches the storage URI and `localModel.enabled` is true (false in the default installation's `inferenceservice-config`): cluster state"},
		{"InferenceService", `.spec.predictor`,
			"in the deployment mode `ModelMesh` the predictor is not defaulted (a framework's field stays, with the Go round trip's `name: \"\"` and `resources: {}`); ModelMesh is not among the learner's inputs, so the model form's rules fill there what the webhook does not"},
		{"InferenceService", `.resources.limits.*, .resources.requests.*`,
			"a quantity written as a number (`cpu: 1`) is stored as a string (`\"1\"`) by the webhook's Go types; write it quoted in Git"},
		{"InferenceService", `.spec.predictor.containers[].resources, .spec.transformer.containers[].resources, .spec.explainer.containers[].resources`,
			"with several containers in a component, the webhook defaults the first one's resources only; a mutation rule cannot name a list item by its position, so the whole-resources rules hold under conditions of the learner's inputs (one explainer container; a Triton or vLLM model beside a transformer) and resources written in part are completed on every container: with several containers, write each one's resources in Git"},
	},
	"cluster-api": {
		{"Machine, MachineSet, MachineDeployment, MachinePool, MachineHealthCheck", `.metadata.labels["cluster.x-k8s.io/cluster-name"]`,
			"the value of `.spec.clusterName`, copied (and written over a label stated otherwise): no mutation rule copies a field; state the label in Git"},
		{"MachineDeployment", `.spec.selector.matchLabels["cluster.x-k8s.io/cluster-name"], .spec.template.metadata.labels["cluster.x-k8s.io/cluster-name"]`,
			"the value of `.spec.clusterName`, copied, always"},
		{"MachineDeployment, MachineSet", `.spec.selector.matchLabels, .spec.template.metadata.labels`,
			"when the selector states neither labels nor expressions: the object's own name (`cluster.x-k8s.io/deployment-name`, `cluster.x-k8s.io/set-name`)"},
		{"MachineSet, MachineDeployment, MachinePool", `.spec.replicas`, "1 when nothing says otherwise, but the autoscaler's `cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size` and `-max-size` annotations decide it, and on update the old object's replicas; state the replicas in Git, or leave them to the autoscaler with an ignore rule"},
		{"Cluster", `.spec.topology.variables`, "defaulted from the schema of the ClusterClass the Cluster names, read from the cluster when the class is reconciled"},
		{"KubeadmConfigTemplate", `.spec.template.spec`, "earlier releases' defaults, applied only to the topology controller's own dry runs (a dry-run request whose object carries its dry-run annotation)"},
		{"Cluster, ClusterClass, Machine, MachineSet, MachineDeployment, MachinePool, MachineHealthCheck, KubeadmControlPlane (v1.10.10 and older)",
			`.spec.infrastructureRef.namespace, .spec.controlPlaneRef.namespace, .spec.bootstrap.configRef.namespace, .spec.template.spec.infrastructureRef.namespace, .spec.template.spec.bootstrap.configRef.namespace, .spec.machineTemplate.infrastructureRef.namespace, .spec.remediationTemplate.namespace, a ClusterClass's .ref.namespace`,
			"a reference without a namespace gets the object's own, which the request decides (Argo CD's destination namespace): write it in Git"},
		{"MachineHealthCheck, ClusterClass, Cluster (v1.10.10 and older)", `.spec.unhealthyConditions[].timeout, .machineHealthCheck.unhealthyConditions[].timeout, .spec.topology...nodeVolumeDetachTimeout`,
			"a duration written in another form (`300s`, `5m`) is stored in Go's (`5m0s`); only a MachineHealthCheck's `nodeStartupTimeout: 5m` is learned as a rewrite: write durations so in Git"},
		{"ClusterClass (v1.10.10 and older)", `.spec.controlPlane.metadata.annotations`,
			"`annotations: null` written is dropped by the webhooks' Go types; no mutation removes a value: leave it out in Git"},
		{"ExtensionConfig", `.spec.namespaceSelector, .spec.clientConfig.service.port`, "an empty selector and port 443: the kind is cluster-scoped, and the learner's inputs are namespaced objects; not learned, so not filled"},
	},
}

// notFilledSection lists the fields of op its webhooks write that no
// profile fills, with the reason.
func notFilledSection(b *bytes.Buffer, op string) {
	list, ok := notFilled[op]
	if !ok {
		return
	}
	b.WriteString("\n## What the webhooks write that is not filled\n\n")
	b.WriteString("The webhooks write these fields from the request, the old object, another field, the cluster's" +
		" state or their Go types' encoding, so no profile can fill them ahead of the API server, and `audit` keeps an `ignoreDifferences` rule on" +
		" them. [Webhook defaults](../webhooks.md) says how each diff mode of Argo CD sees them.\n\n")
	b.WriteString("| Kinds | Field | Why |\n|---|---|---|\n")
	for _, u := range list {
		fmt.Fprintf(b, "| %s | %s | %s |\n", u.kinds, code(u.path), u.why)
	}
}
