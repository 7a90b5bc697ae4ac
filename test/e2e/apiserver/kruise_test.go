package apiserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// openKruise: OpenKruise's defaulting webhooks for its workloads with pod
// templates (CloneSet, Advanced StatefulSet, Advanced DaemonSet: the
// operator's own admission handlers), registered from the release's
// config/webhook/manifests.yaml; its other webhooks (Pods, SidecarSets,
// jobs, ...) are not served, so not registered.
var openKruise = &webhookOperator{
	name:     "kruise",
	module:   "github.com/openkruise/kruise",
	operator: "openkruise",
	crds:     []string{"config/crd/bases/*.yaml"},
	// The samples and tutorial objects of the kinds served (the others'
	// webhooks do not run).
	samples: []string{"config/samples/apps_*_cloneset.yaml", "config/samples/apps_*_statefulset.yaml", "config/samples/apps_*_daemonset.yaml",
		"docs/tutorial/v1/cloneset-*.yaml", "docs/tutorial/v1/daemonset-*.yaml", "docs/tutorial/v1/guestbook-st*.yaml", "docs/tutorial/v1/guestbook-patch-to-v2.yaml"},
	groups:    []string{"apps.kruise.io"},
	objects:   "objects.yaml",
	manifests: []string{"config/webhook/manifests.yaml"},
	probe: map[string]any{
		"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
		"metadata": map[string]any{"name": "probe"},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "probe"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "probe"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "main", "image": "nginx:1.27"}}},
			},
		},
	},
	probed: func(o *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedInt64(o.Object, "spec", "revisionHistoryLimit")
		return found
	},
	// The workloads' own fields and the pod template's Kubernetes defaults.
	learned: learnedPaths(".spec.revisionHistoryLimit", ".spec.updateStrategy.maxUnavailable", ".spec.template.spec.dnsPolicy",
		".spec.template.spec.containers[].imagePullPolicy", ".spec.template.spec.containers[].terminationMessagePath"),
	notFilled: []notFilled{
		{path: `\.initContainers\[\]\.imagePullPolicy$`, reason: "an init container's pull policy follows its image's tag (IfNotPresent, or Always for latest or no tag: Kubernetes' container default), which no mutation rule can say; write it in Git"},
		{path: `\.metadata\.creationTimestamp$`, reason: "creationTimestamp: null in the pod template's and claim templates' metadata, written by the webhook's Go types (the releases' k8s.io/apimachinery, v0.26 to v0.32, encodes an empty time as null); no mutation fills a null"},
	},
	// Seeds of a kind the release's CRDs do not define are left out (before
	// v1.9, the v1beta1 DaemonSet).
	releaseKinds: true,
	releases:     kruiseReleases(),
	variant:      before(4, &kruiseBefore14),
}

// kruiseBefore14 is openKruise for releases before v1.4: a rollingUpdate
// written without updateStrategy.type is replaced by the defaults (a
// DaemonSet's before v1.1). Learning finds that as rewrites under that
// condition, and fill warns for the values the learner wrote only. Made
// in init because openKruise's variant names it.
var kruiseBefore14 *webhookOperator

func init() {
	v := *openKruise
	v.variant = nil
	v.learned = func(t *testing.T, stdout string, r learnReport, leftOut map[string]string) {
		openKruise.learned(t, stdout, r, leftOut)
		if !strings.Contains(stdout, "      - path: .spec.updateStrategy.rollingUpdate.partition\n        when: (.spec.updateStrategy.type) == null\n        from: 1\n        to: 0\n") {
			t.Errorf("not learned: the rewrite of a written rollingUpdate.partition where updateStrategy.type is not written")
		}
	}
	v.notFilled = append(slices.Clone(openKruise.notFilled), notFilled{path: `^\.spec\.updateStrategy\.rollingUpdate\.[^.]+$`, rewrite: true,
		reason: "a rollingUpdate written without updateStrategy.type is replaced by the defaults (before v1.4; a DaemonSet's before v1.1): fill warns for the values the learner wrote (maxUnavailable: 2, partition: 1, ...), not for every value; write updateStrategy.type in Git"})
	kruiseBefore14 = &v
}

// kruiseReleases are webhook-kruise's builds, one per go.vV.mod
// (scripts/webhook-release.sh), none on every run: each builds from the
// source at its tag where the module proxy refuses the release or serves
// another commit as it (v1.9.0: a master commit, not the release; SOURCE=1),
// and go.mod, v1.9.0's copy, is left out. Before v1.7 the manager injects
// the handlers' decoder (build tag injectdecoder: handlers_inject.go).
func kruiseReleases() []webhookRelease {
	all := modfileReleases("kruise", tagsByMinor("", below{7, "injectdecoder"}))
	return slices.DeleteFunc(all, func(r webhookRelease) bool { return r.modfile == "go.mod" })
}

// TestOpenKruiseWebhook: the webhook of each release, learned and checked
// on the operator's own samples (webhookOperator.run).
func TestOpenKruiseWebhook(t *testing.T) { openKruise.run(t) }

// TestOpenKruiseTemplateNoDefaults: OpenKruise v1.9.0 with the
// TemplateNoDefaults feature gate on (what its GitOps guide recommends),
// learned as a profile that replaces the release (profiles learn --as),
// fills the workloads without the pod-template defaults the shipped
// profile fills, and they are Synced and equal to what the server stores.
func TestOpenKruiseTemplateNoDefaults(t *testing.T) {
	if !selected(false, "v1.9.0", os.Getenv("E2E_KRUISE_RELEASES")) {
		t.Skip("checked with E2E_KRUISE_RELEASES=all or =v1.9.0 (its webhook builds from the source at the tag: scripts/webhook-sources.sh)")
	}
	op := *openKruise
	op.env = []string{"KRUISE_FEATURE_GATES=TemplateNoDefaults=true"}
	w, s, a, _, crds := op.start(t, []string{"-modfile=go.v1.9.0.mod"})
	release := strings.TrimPrefix(w.Version, "v")
	if !strings.Contains(w.Configuration, "TemplateNoDefaults true") {
		t.Fatalf("the webhook runs with %s", w.Configuration)
	}
	dir := filepath.Join("testdata", "webhooks", op.name)
	vary, _ := a.acceptedVariations(t, filepath.Join(dir, "seeds.yaml"), filepath.Join(dir, "vary.yaml"), op.namespace())
	out := t.TempDir()
	reportFile := filepath.Join(t.TempDir(), "report.json")
	r := runBinary(t, "", "profiles", "learn", "--kubeconfig", s.kubeconfig, "--second-context", "editor", "--as", "openkruise@"+release,
		"--write", out, "--report", reportFile, "--vary", vary, filepath.Join(dir, "seeds.yaml"))
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("profiles learn: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("report:\n%s", r.stderr)
	// The report names the pod-template fields the shipped mutations fill
	// and this configuration no longer adds; the workloads' own stay.
	var rep struct {
		NotRelearned []string `json:"notRelearned"`
	}
	if data, err := os.ReadFile(reportFile); err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("%s: %v", reportFile, err)
	}
	all := "\n" + strings.Join(rep.NotRelearned, "\n") + "\n"
	for _, want := range []string{" CloneSet .spec.template.spec.dnsPolicy\n", " StatefulSet .spec.template.spec.containers[].imagePullPolicy\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("the report does not say that%s is no longer filled: %s", strings.TrimSuffix(want, "\n"), all)
		}
	}
	for _, f := range rep.NotRelearned {
		if !strings.Contains(f, " .spec.template.") && !strings.Contains(f, " .spec.volumeClaimTemplates[]") || strings.Contains(f, "DaemonSet") {
			t.Errorf("the report says a field outside CloneSet's and StatefulSet's templates is no longer filled: %s", f)
		}
	}
	t.Logf("%d field(s) of the shipped profile no longer filled with the gate on", len(rep.NotRelearned))
	data, err := os.ReadFile(filepath.Join(out, "openkruise_v"+release+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n  overrides: openkruise@"+release+" (shipped profiles/openkruise/v"+release+".yaml)\n") ||
		!strings.Contains(string(data), "path: .spec.revisionHistoryLimit\n") || strings.Contains(string(data), "path: .spec.template.spec.dnsPolicy\n") {
		t.Errorf("the learned profile does not replace the release with the workloads' defaults alone:\n%s", data)
	}
	objs := readObjects(t, filepath.Join(dir, op.objects))
	shipped := fill(t, objs, "--operator", "openkruise@"+release)
	results := a.run(t, scenario{id: "kruise-nodefaults", crds: crds, objects: objs, fillArgs: []string{"--operator", "openkruise@" + release, "--profiles-dir", out}})
	requireSyncedExcept(t, results, op.notFilled)
	for i, res := range results {
		_, filled, _ := unstructured.NestedString(res.filledObj.Object, "spec", "template", "spec", "dnsPolicy")
		_, byShipped, _ := unstructured.NestedString(shipped[i].Object, "spec", "template", "spec", "dnsPolicy")
		if filled || byShipped != (res.gvk.Kind != "DaemonSet") {
			t.Errorf("%s: dnsPolicy filled %v with the override, %v with the shipped profile", res.id, filled, byShipped)
		}
	}
}
