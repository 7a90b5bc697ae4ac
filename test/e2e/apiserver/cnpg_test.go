package apiserver

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// cnpgEnv is the configuration of CloudNativePG's default installation
// that its webhook reads: the release manifest's Deployment sets it
// (config/manager: MONITORING_QUERIES_CONFIGMAP from the kustomization's
// default-monitoring ConfigMap, prefixed cnpg-).
var cnpgEnv = []string{"MONITORING_QUERIES_CONFIGMAP=cnpg-default-monitoring"}

// cnpgReleases: every release from v1.20.0 on. Where the Go module proxy
// refuses a release, its go.v*.mod replaces the module with the operator's
// source at the release's tag (./src/TAG, laid out from a git mirror by
// scripts/webhook-sources.sh). Tags by how the release serves
// its defaulters: apidefaulter (v1.20 to v1.25.0: the API types are
// controller-runtime Defaulters; with noscheme on v1.20.0's
// controller-runtime v0.14), legacydefaulter (CustomDefaulter before
// controller-runtime v0.23; nodatabase before v1.26's Database webhook),
// none (the generic defaulter of v0.23 and later).
var cnpgReleases = []webhookRelease{
	{modfile: "go.v1.20.0.mod", tags: "apidefaulter,noscheme"},
	{modfile: "go.v1.20.1.mod", tags: "apidefaulter"},
	{modfile: "go.v1.20.2.mod", tags: "apidefaulter"},
	{modfile: "go.v1.20.3.mod", tags: "apidefaulter"},
	{modfile: "go.v1.20.4.mod", tags: "apidefaulter"},
	{modfile: "go.v1.20.5.mod", tags: "apidefaulter"},
	{modfile: "go.v1.20.6.mod", tags: "apidefaulter"},
	{modfile: "go.v1.21.0.mod", tags: "apidefaulter"},
	{modfile: "go.v1.21.1.mod", tags: "apidefaulter"},
	{modfile: "go.v1.21.2.mod", tags: "apidefaulter"},
	{modfile: "go.v1.21.3.mod", tags: "apidefaulter"},
	{modfile: "go.v1.21.4.mod", tags: "apidefaulter"},
	{modfile: "go.v1.21.5.mod", tags: "apidefaulter"},
	{modfile: "go.v1.21.6.mod", tags: "apidefaulter"},
	{modfile: "go.v1.22.0.mod", tags: "apidefaulter"},
	{modfile: "go.v1.22.1.mod", tags: "apidefaulter"},
	{modfile: "go.v1.22.2.mod", tags: "apidefaulter"},
	{modfile: "go.v1.22.3.mod", tags: "apidefaulter"},
	{modfile: "go.v1.22.4.mod", tags: "apidefaulter"},
	{modfile: "go.v1.22.5.mod", tags: "apidefaulter"},
	{modfile: "go.v1.23.0.mod", tags: "apidefaulter"},
	{modfile: "go.v1.23.1.mod", tags: "apidefaulter"},
	{modfile: "go.v1.23.2.mod", tags: "apidefaulter"},
	{modfile: "go.v1.23.3.mod", tags: "apidefaulter"},
	{modfile: "go.v1.23.4.mod", tags: "apidefaulter"},
	{modfile: "go.v1.23.5.mod", tags: "apidefaulter"},
	{modfile: "go.v1.23.6.mod", tags: "apidefaulter"},
	{modfile: "go.v1.24.0.mod", tags: "apidefaulter"},
	{modfile: "go.v1.24.1.mod", tags: "apidefaulter"},
	{modfile: "go.v1.24.2.mod", tags: "apidefaulter"},
	{modfile: "go.v1.24.3.mod", tags: "legacydefaulter,nodatabase"},
	{modfile: "go.v1.24.4.mod", tags: "legacydefaulter,nodatabase"},
	{modfile: "go.v1.25.0.mod", tags: "apidefaulter"},
	{modfile: "go.v1.25.1.mod", tags: "legacydefaulter,nodatabase"},
	{modfile: "go.v1.25.2.mod", tags: "legacydefaulter,nodatabase"},
	{modfile: "go.v1.25.3.mod", tags: "legacydefaulter,nodatabase"},
	{modfile: "go.v1.25.4.mod", tags: "legacydefaulter,nodatabase"},
	{modfile: "go.v1.26.0.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.26.1.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.26.2.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.26.3.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.27.0.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.27.1.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.27.2.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.27.3.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.27.4.mod"},
	{modfile: "go.v1.28.0.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.28.1.mod", tags: "legacydefaulter"},
	{modfile: "go.v1.28.2.mod"},
	{modfile: "go.v1.28.3.mod"},
	{modfile: "go.v1.28.4.mod"},
	{modfile: "go.v1.29.0.mod"},
	{modfile: "go.v1.29.1.mod"},
	{modfile: "go.v1.29.2.mod"},
	{modfile: "go.mod", always: true},
}

// TestCNPGWebhook: CloudNativePG's own mutating webhooks, built from the
// operator's module (test/e2e/webhook-cnpg) at each release of
// cnpgReleases and registered from its own manifest, in the admission chain
// of a real kube-apiserver with the release's own CRDs (both read from the
// module as the Go proxy serves it).
//
//   - 'profiles learn --vary' on inputs generated from a few seeds
//     (testdata/webhooks/cnpg: seeds.yaml and vary.yaml) gives the same
//     bytes as the committed scripts/learned file: the shipped mutations
//     are what this release's code does (E2E_LEARN_WRITE=1, as
//     scripts/learn-webhooks.sh sets it, rewrites the file instead);
//   - the operator's own samples (docs/src/samples of the module), which
//     the learner never saw, and a few Clusters of our own, filled with
//     the operator's name alone, are Synced in every Argo CD diff mode and
//     equal to what the server stores.
func TestCNPGWebhook(t *testing.T) { cnpgOperator.run(t) }

// cnpgOperator: CloudNativePG's webhook as the suite learns it.
var cnpgOperator = &webhookOperator{
	name:      "cnpg",
	module:    "github.com/cloudnative-pg/cloudnative-pg",
	operator:  "cloudnative-pg",
	crds:      []string{"config/crd/bases/*.yaml"},
	samples:   []string{"docs/src/samples/*.yaml"},
	groups:    []string{"postgresql.cnpg.io"},
	objects:   "clusters.yaml",
	metadata:  true,
	manifests: []string{"config/webhook/manifests.yaml"},
	env:       cnpgEnv,
	probe: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": "probe"},
		"spec":     map[string]any{"instances": int64(1), "storage": map[string]any{"size": "1Gi"}},
	},
	probed: func(o *unstructured.Unstructured) bool {
		v, _, _ := unstructured.NestedString(o.Object, "spec", "logLevel")
		return v != ""
	},
	learned: func(t *testing.T, stdout string, report learnReport, leftOut map[string]string) {
		// What the rule language cannot say is reported, with the rule
		// that covers it: the tablespace owner copies a bootstrap owner
		// the manifest states (learned only for none stated).
		found := map[string]bool{}
		for _, f := range report.NotLearned {
			if f.IgnoreDifferences != nil {
				found[f.Path] = true
			}
		}
		for _, p := range []string{".spec.tablespaces[].owner"} {
			if !found[p] && leftOut[strings.TrimSuffix(p, "[].owner")] != "all" {
				t.Errorf("%s is not reported as not learned, with the rule that covers it", p)
			}
		}
		// The default queries are put first into a list the user wrote,
		// unless an entry of that name is there: an insert rule.
		if r := "path: .spec.monitoring.customQueriesConfigMap\n        value:\n          key: queries\n          name: cnpg-default-monitoring\n        insert: first\n        key: name\n"; !strings.Contains(stdout, r) {
			t.Errorf("not learned: %s", r)
		}
	},
	releases: cnpgReleases,
}

// TestCNPGOverride: an operator configured otherwise than its release
// manifest's Deployment stores other values than the shipped profile
// fills: another default PostgreSQL image (POSTGRES_IMAGE_NAME), and the
// default monitoring queries from a Secret (MONITORING_QUERIES_SECRET)
// instead of a ConfigMap (MONITORING_QUERIES_CONFIGMAP unset). 'profiles
// learn --as cloudnative-pg@RELEASE' against it, from the seeds the shipped
// mutations were learned from, writes a profile that, in a profiles
// directory, replaces the shipped release: Clusters filled with the
// release's name and that directory are Synced in every diff mode and
// equal to what the server stores, with this configuration's values, not
// the shipped ones.
func TestCNPGOverride(t *testing.T) {
	const image = "registry.example.com/postgresql:17.6-system-trixie"
	op := *cnpgOperator
	op.env = []string{"POSTGRES_IMAGE_NAME=" + image, "MONITORING_QUERIES_SECRET=site-queries"}
	w, s, a, _, crds := op.start(t, nil)
	release := strings.TrimPrefix(w.Version, "v")
	if !strings.Contains(w.Configuration, "POSTGRES_IMAGE_NAME="+image) || strings.Contains(w.Configuration, "MONITORING_QUERIES_CONFIGMAP") {
		t.Fatalf("the webhook runs with %s", w.Configuration)
	}
	dir := t.TempDir()
	r := runBinary(t, "", "profiles", "learn", "--kubeconfig", s.kubeconfig, "--second-context", "editor", "--as", "cloudnative-pg@"+release,
		"--write", dir, "--vary", filepath.Join("testdata", "webhooks", "cnpg", "vary.yaml"), filepath.Join("testdata", "webhooks", "cnpg", "seeds.yaml"))
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("profiles learn: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("report:\n%s", r.stderr)
	// What the shipped mutations fill and this configuration does not add
	// is reported: the default queries' ConfigMap, and only that.
	_, notRelearned, _ := strings.Cut(r.stderr, "It no longer fills")
	notRelearned, _, _ = strings.Cut(notRelearned, "\n\n")
	if !strings.HasSuffix(notRelearned, ":\n  postgresql.cnpg.io/v1 Cluster .spec.monitoring.customQueriesConfigMap") || strings.Count(notRelearned, "\n  ") != 1 {
		t.Errorf("the report does not say that only the default queries' ConfigMap is no longer filled:%s", notRelearned)
	}
	file := filepath.Join(dir, "cloudnative-pg_v"+release+".yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\noperator: cloudnative-pg\n", "\nversion: v" + release + "\n",
		"\n  overrides: cloudnative-pg@" + release + " (shipped profiles/cloudnative-pg/v" + release + ".yaml)\n",
		"\n  context: admin\n", "\n  secondContext: editor\n",
		"\n    defaults:\n", "value: " + image + "\n", "customQueriesSecret:\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q:\n%s", file, want, data)
		}
	}
	if strings.Contains(string(data), "ghcr.io/cloudnative-pg/postgresql") {
		t.Errorf("%s holds the shipped default image:\n%s", file, data)
	}

	objs := readObjects(t, filepath.Join("testdata", "webhooks", "cnpg", "clusters.yaml"))
	shipped := fill(t, objs, "--operator", "cloudnative-pg@"+release)
	results := a.run(t, scenario{id: "cnpg-override", crds: crds, objects: objs, fillArgs: []string{"--operator", "cloudnative-pg@" + release, "--profiles-dir", dir}})
	requireSynced(t, results)
	for i, res := range results {
		got, _, _ := unstructured.NestedString(res.filledObj.Object, "spec", "imageName")
		def, _, _ := unstructured.NestedString(shipped[i].Object, "spec", "imageName")
		if got != image || def == image || def == "" {
			t.Errorf("%s: imageName filled %q with the override (and stored), %q with the shipped profile; want %q, then another", res.id, got, def, image)
		}
		_, secret, _ := unstructured.NestedSlice(res.filledObj.Object, "spec", "monitoring", "customQueriesSecret")
		_, cm, _ := unstructured.NestedSlice(res.filledObj.Object, "spec", "monitoring", "customQueriesConfigMap")
		_, shippedCM, _ := unstructured.NestedSlice(shipped[i].Object, "spec", "monitoring", "customQueriesConfigMap")
		if !secret || cm || !shippedCM {
			t.Errorf("%s: the override fills customQueriesSecret %v and customQueriesConfigMap %v (the shipped profile: %v); want true, false (true)", res.id, secret, cm, shippedCM)
		}
	}
}

// requireSynced: with cmp-defaults every diff mode is Synced and the filled
// object equals what the server stores, for the object as written and for
// the filled one; an object may differ only at the paths fill warned about
// (a value written that admission rewrites: never changed, told), and
// every path warned about must differ. It logs the counts.
func requireSynced(t *testing.T, results []*objectResult) {
	t.Helper()
	requireSyncedExcept(t, results, nil)
}

// requireSyncedExcept is requireSynced where an object may also differ at
// the paths notFilled names: what the operator's page says cmp-defaults
// does not fill, and why. Each such object is counted and its paths logged.
func requireSyncedExcept(t *testing.T, results []*objectResult, notFilled []notFilled) {
	t.Helper()
	report(t, results)
	equal, warnedObjs, unfilled := 0, 0, 0
	seen := map[string]int{}
	for _, r := range results {
		warned := map[string]bool{}
		for _, p := range r.warned {
			warned[p] = true
		}
		differs, known := map[string]bool{}, map[string]bool{}
		rest := func(cs []change) []string {
			var out []change
			for _, c := range cs {
				differs[c.path] = true
				if why := notFilledAt(notFilled, c); why != "" {
					known[why] = true
					continue
				}
				if !warned[c.path] {
					out = append(out, c)
				}
			}
			return uniq(out)
		}
		if d := rest(r.vsRaw); len(d) > 0 {
			t.Errorf("%s: filled object differs from what the server stores for the object as written: %v", r.id, d)
		}
		if d := rest(r.vsFilled); len(d) > 0 {
			t.Errorf("%s: filled object differs from what the server stores for it: %v", r.id, d)
		}
		for _, m := range diffModes {
			if c := r.filled[m.name]; !c.synced() && len(rest(c.changes)) > 0 {
				t.Errorf("%s: with cmp-defaults, %s: %s", r.id, m.name, c)
			}
		}
		for _, p := range r.warned {
			if !differs[p] {
				t.Errorf("%s: fill warned about %s, where the stored object does not differ", r.id, p)
			}
		}
		for why := range known {
			seen[why]++
		}
		switch {
		case len(differs) == 0:
			equal++
		case len(known) > 0:
			unfilled++
		case len(r.warned) > 0:
			warnedObjs++
		}
	}
	t.Logf("%d of %d object(s) Synced in every diff mode and equal to what the server stores; %d differ only where fill warned (a value written that admission rewrites)", equal, len(results), warnedObjs)
	if unfilled > 0 {
		t.Logf("%d object(s) differ where cmp-defaults does not fill, as documented:", unfilled)
		for _, n := range notFilled {
			t.Logf("  %d object(s): %s (%s)", seen[n.reason], n.path, n.reason)
		}
	}
}

// notFilled is a field an operator's webhook writes that cmp-defaults does
// not fill, told by a pattern of paths (list indices as []) and the reason;
// rewrite: only where a value written is changed, not added.
type notFilled struct {
	path, reason string
	rewrite      bool
	re           *regexp.Regexp
}

// notFilledAt is the reason the change c (at .spec.params[0].type) is not
// filled, or "" when nothing says it is not.
func notFilledAt(list []notFilled, c change) string {
	p := listIndex.ReplaceAllString(c.path, "[]")
	for i := range list {
		if list[i].re == nil {
			list[i].re = regexp.MustCompile(list[i].path)
		}
		if list[i].rewrite && (c.added || c.removed) {
			continue
		}
		if list[i].re.MatchString(p) {
			return list[i].reason
		}
	}
	return ""
}

var listIndex = regexp.MustCompile(`\[[0-9]+\]`)

// acceptedVariations is the variations file with the values left out that
// the release's API server rejects on a seed (fields older CRDs lack: the
// learner fails on a generated input the server rejects), as a file of
// the test's own when any is, and per field how many of its values were
// left out (all of them: the field is not varied).
func (a *argo) acceptedVariations(t *testing.T, seedsFile, varyFile, ns string) (string, map[string]string) {
	t.Helper()
	seeds := readObjects(t, seedsFile)
	data, err := os.ReadFile(varyFile)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", varyFile, err)
	}
	dims, _ := v["vary"].([]any)
	var kept []any
	leftOut := map[string]string{}
	for _, d := range dims {
		dim, _ := d.(map[string]any)
		path, _ := dim["path"].(string)
		fields := strings.Split(strings.TrimPrefix(path, "."), ".")
		values, _ := dim["values"].([]any)
		kinds, _ := dim["kinds"].([]any)
		var ok []any
		for _, val := range values {
			var objs []*unstructured.Unstructured
			for _, seed := range seeds {
				if len(kinds) > 0 && !slices.Contains(kinds, any(seed.GetKind())) && !slices.Contains(kinds, any(seed.GetAPIVersion()+" "+seed.GetKind())) {
					continue
				}
				o := seed.DeepCopy()
				if val == nil {
					unstructured.RemoveNestedField(o.Object, fields...)
				} else if err := unstructured.SetNestedField(o.Object, runtime.DeepCopyJSONValue(val), fields...); err != nil {
					t.Fatalf("%s: %s: %v", varyFile, path, err)
				}
				objs = append(objs, o)
			}
			if len(a.accepted(t, objs, ns)) == len(objs) {
				ok = append(ok, val)
			}
		}
		if len(ok) < len(values) {
			leftOut[path] = fmt.Sprintf("%d of %d values", len(values)-len(ok), len(values))
			t.Logf("%s: %s rejected by the release's CRDs, left out", path, leftOut[path])
		}
		if len(ok) == 0 {
			leftOut[path] = "all"
			continue
		}
		dim["values"] = ok
		kept = append(kept, dim)
	}
	if len(leftOut) == 0 {
		return varyFile, leftOut
	}
	v["vary"] = kept
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "vary.yaml")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return file, leftOut
}

var hostPort = regexp.MustCompile(`https://127\.0\.0\.1:[0-9]+`)

// shippable makes a learned profile reproducible and says where it came
// from: the suite's API server instead of its random address, and the
// module and configuration of the webhook; it names the operator
// (learnedAs is the name it was learned under).
func shippable(profile, host string, w *operatorWebhook, learnedAs, operator string) string {
	out := strings.Replace(profile, "\noperator: "+learnedAs+"\n", "\noperator: "+operator+"\n", 1)
	out = strings.ReplaceAll(out, host, "test/e2e/apiserver")
	out = hostPort.ReplaceAllString(out, "test/e2e/apiserver")
	out = strings.Replace(out, "\n  serverVersion:", "\n  module: "+w.Ref()+"\n  configuration: "+strconv.Quote(w.Configuration)+"\n  serverVersion:", 1)
	return out
}

// checkLearned compares what a webhook's learning gave with the committed
// file (or writes it with E2E_LEARN_WRITE set).
func checkLearned(t *testing.T, file, got, module string) {
	t.Helper()
	if os.Getenv("E2E_LEARN_WRITE") != "" {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", file)
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v: learn it with scripts/learn-webhooks.sh", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		t.Errorf("%s is not what %s's webhook does now (run scripts/learn-webhooks.sh):\nlearned:\n%s", file, module, got)
	}
}
