package opdocs

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// setting is a field an operator's webhook fills from the operator's
// configuration, and the key that changes it.
type setting struct{ path, key string }

// configured holds, per operator whose webhook defaults ship, the fields
// that depend on the operator's configuration (read in its admission code:
// CloudNativePG's internal/configuration, Knative's config-defaults and
// config-features), and the inputs the shipped mutations were learned from,
// so that a user learning an override covers the same branches.
var configured = map[string]struct {
	where    string // where the keys are set
	inputs   string // 'profiles learn' inputs (paths in this repository)
	settings []setting
}{
	"cloudnative-pg": {"the operator's ConfigMap or Secret (`cnpg-controller-manager-config`) or its environment",
		"--vary test/e2e/apiserver/testdata/webhooks/cnpg/vary.yaml test/e2e/apiserver/testdata/webhooks/cnpg/seeds.yaml", []setting{
			{".spec.imageName", "`POSTGRES_IMAGE_NAME` (filled when the Cluster names no `imageCatalogRef`)"},
			{".spec.monitoring.customQueriesConfigMap", "`MONITORING_QUERIES_CONFIGMAP`: when set (to any ConfigMap, which the operator copies as `cnpg-default-monitoring`) the default queries are added, when empty they are not"},
			{".spec.monitoring.customQueriesSecret", "`MONITORING_QUERIES_SECRET`, in the same way"},
			{".spec.plugins", "`INCLUDE_PLUGINS`"},
		}},
	"openkruise": {"the manager's feature gates (its `--feature-gates` flag, the Helm chart's `featureGates` value)",
		"--vary test/e2e/apiserver/testdata/webhooks/kruise/vary.yaml test/e2e/apiserver/testdata/webhooks/kruise/seeds.yaml", []setting{
			{".spec.template.spec.dnsPolicy", "`TemplateNoDefaults=true`: not filled, nor any other Pod default in the pod template (`restartPolicy`, `schedulerName`, the containers' `imagePullPolicy`, probes' thresholds, ...) or claim template of CloneSet and Advanced StatefulSet"},
			{".spec.template.spec.containers[].imagePullPolicy", "`TemplateNoDefaults=true`: not filled"},
			{".spec.persistentVolumeClaimRetentionPolicy", "`StatefulSetAutoDeletePVC=false`: not filled (Advanced StatefulSet)"},
		}},
	"kserve": {"the ConfigMap `inferenceservice-config` in the operator's namespace (`kserve`; the release's `config/configmap/inferenceservice.yaml` is the default installation's), read on every request",
		"--vary test/e2e/apiserver/testdata/webhooks/kserve/vary.yaml test/e2e/apiserver/testdata/webhooks/kserve/seeds.yaml", []setting{
			{".spec.predictor.containers[].resources", "`inferenceService` `resource`: `cpuRequest`, `memoryRequest`, `cpuLimit`, `memoryLimit` (a predictor without `model`)"},
			{".spec.transformer.containers[].resources", "`inferenceService` `resource`, the same keys"},
			{".spec.explainer.containers[].resources", "`inferenceService` `resource`, the same keys"},
			{".spec.explainer.art.resources", "`inferenceService` `resource`, the same keys"},
			{".spec.explainer.art.runtimeVersion", "`explainers` `art.defaultImageVersion`"},
			{`.metadata.annotations["serving.kserve.io/deploymentMode"]`, "`deploy` `defaultDeploymentMode`: added where none is written only when it is `Standard` or `ModelMesh` (the default installation's `Serverless` adds none)"},
			{".spec.predictor.automountServiceAccountToken", "`security` `autoMountServiceAccountToken`: when false, `false` on each component that states none (the default installation's `true` adds none)"},
		}},
	"knative-serving": {"the ConfigMaps `config-defaults` and `config-features` in `knative-serving`",
		"test/e2e/apiserver/testdata/webhooks/knative/inputs.yaml", []setting{
			{".spec.template.spec.timeoutSeconds", "`config-defaults` `revision-timeout-seconds`"},
			{".spec.template.spec.idleTimeoutSeconds", "`config-defaults` `revision-idle-timeout-seconds`"},
			{".spec.template.spec.responseStartTimeoutSeconds", "`config-defaults` `revision-response-start-timeout-seconds`"},
			{".spec.template.spec.containerConcurrency", "`config-defaults` `container-concurrency`"},
			{".spec.template.spec.enableServiceLinks", "`config-defaults` `enable-service-links` (set on create only)"},
			{".spec.template.spec.containers[].resources", "`config-defaults` `revision-cpu-request`, `revision-memory-request`, `revision-ephemeral-storage-request`, `revision-cpu-limit`, `revision-memory-limit`, `revision-ephemeral-storage-limit`"},
			{".spec.template.spec.containers[].name", "`config-defaults` `container-name-template` (the only container; several are numbered)"},
			{".spec.template.spec.initContainers[].name", "`config-defaults` `init-container-name-template` (the only init container; several are numbered)"},
			{".spec.template.spec.containers[].securityContext", "`config-features` `secure-pod-defaults`"},
		}},
	"knative-eventing": {"the ConfigMaps `config-br-defaults`, `default-ch-webhook` and `config-features` in `knative-eventing`",
		"--vary test/e2e/apiserver/testdata/webhooks/eventing/vary.yaml test/e2e/apiserver/testdata/webhooks/eventing/seeds.yaml", []setting{
			{`.metadata.annotations["eventing.knative.dev/broker.class"]`, "`config-br-defaults` `default-br-config`: `clusterDefault.brokerClass`, or a namespace's in `namespaceDefaults`"},
			{".spec.config", "`config-br-defaults` `default-br-config`: the broker class's `apiVersion`, `kind`, `name`, `namespace` (a Broker's `spec`)"},
			{".spec.delivery", "`config-br-defaults` `default-br-config`: the broker class's `delivery` (a Broker's `spec`)"},
			{".spec.channelTemplate", "`default-ch-webhook` `default-ch-config`: `clusterDefault`, or a namespace's in `namespaceDefaults` (Channel, Parallel, Sequence)"},
			{".spec.timeout", "`config-features` `requestreply-default-timeout` (a RequestReply's)"},
		}},
}

// configuredSection lists the fields of op that depend on the operator's
// configuration with the values the newest profile with mutations fills,
// and how a profile learned from one's own cluster replaces the release.
func configuredSection(b *bytes.Buffer, op string, profs []*operators.Profile) {
	c, ok := configured[op]
	if !ok {
		return
	}
	var p *operators.Profile
	for _, q := range profs {
		for _, r := range q.Resources {
			if len(r.Mutations) > 0 {
				p = q
			}
		}
	}
	if p == nil {
		return
	}
	b.WriteString("\n## What depends on the operator's configuration\n\n")
	fmt.Fprintf(b, "The webhook fills these fields from the operator's configuration, set in %s. The shipped profiles hold"+
		" a default installation's values (the release manifest's configuration); those of profile %s:\n\n", c.where, p.Version)
	b.WriteString("| Field | Filled | Key that changes it |\n|---|---|---|\n")
	for _, s := range c.settings {
		var vals []string
		for _, r := range p.Resources {
			for _, m := range r.Mutations {
				if v := mutationValue(m); m.Path == s.path && !contains(vals, v) {
					vals = append(vals, v)
				}
			}
		}
		filled := "(nothing)"
		if len(vals) > 0 {
			filled = strings.Join(vals, " or ")
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", code(s.path), filled, s.key)
	}
	fmt.Fprintf(b, "\nIf your operator runs with another configuration, learn a profile that replaces the release from your"+
		" own cluster, and put it in a profiles directory (`--profiles-dir`, or the ConfigMap mounted at"+
		" `$CMP_DEFAULTS_PROFILES_DIR` in the sidecar); `--operator %s@VERSION` then selects it instead of the shipped one:\n\n", op)
	fmt.Fprintf(b, "```sh\ncmp-defaults profiles learn --context prod --second-context prod-editor --as %s@%s \\\n    --write ./my-profiles %s\n```\n",
		op, strings.TrimPrefix(p.Version, "v"), c.inputs)
	b.WriteString("\nIt holds the release's CRD schema defaults and what your cluster's admission adds beyond them (the shipped" +
		" mutations are not filled first, so every value of your configuration is observed); the inputs are the ones the" +
		" shipped mutations were learned from, in this repository, so the same branches are covered, and the report names" +
		" every field the shipped profile fills that the new one does not. `--second-context` (another user) keeps" +
		" identities out. See [Webhook defaults](../webhooks.md#your-operators-configuration-a-profile-that-replaces-the-release).\n")
}

// mutationValue says what a rule fills: its value, its format (a name per
// list item) or the entry it inserts.
func mutationValue(m operators.Mutation) string {
	switch {
	case m.Format != "":
		return code(m.Format)
	case m.Insert != "":
		return value(m.Value) + " (inserted " + m.Insert + " unless an entry has its " + code(m.Key) + ")"
	}
	return value(m.Value)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
