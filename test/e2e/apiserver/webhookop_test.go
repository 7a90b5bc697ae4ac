package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
)

// webhookOperator is an operator whose mutating webhook the suite builds
// from the operator's own Go module (test/e2e/webhook-NAME), registers in a
// real kube-apiserver from the operator's own manifest and learns from, told
// as data: adding an operator is an entry like this, the webhook module and
// testdata/webhooks/NAME (seeds.yaml, vary.yaml).
type webhookOperator struct {
	// name is the webhook module's and the test data's directory name.
	name string
	// testdata, when set, is the test data's directory instead of name's
	// (a variant's: see variant).
	testdata string
	// namespaces are more namespaces the seeds or variations name, created
	// with the operator's own before learning.
	namespaces []string
	// variant, when set, gives another description of the operator for
	// the release of a go.vV.mod (V, "newest" for go.mod), or nil: its
	// releases of another API version (Cluster API's before v1.11 store
	// v1beta1) have their own test data, groups and probe, the webhook
	// module and releases being the same.
	variant func(release string) *webhookOperator
	// module is the operator's Go module; the webhook process gets its
	// directory as OPERATOR_MODULE_DIR (configuration it ships).
	module string
	// operator is the shipped operator the learned files belong to
	// (scripts/learned/OPERATOR/TAG.yaml).
	operator string
	// metadata: its webhook writes labels or annotations, which the
	// objects' check compares too (metadata is otherwise left out).
	metadata bool
	// alongside are the shipped operators selected next to it when its
	// objects are filled, at the same release: an optional webhook's
	// profile has no schema defaults, the operator's has.
	alongside []string
	// crds and samples are globs in the operator's module: its CRDs and
	// the samples it ships (objects of groups only are kept: an API group,
	// or a group and version, group/version).
	crds, samples []string
	groups        []string
	// samplesModule, when set, is the module whose files samples names
	// (at the operator's version: a module of the same repository, such
	// as its tests'), instead of the operator's; sampleVars are the
	// values of its ${NAME} and ${NAME:=default} placeholders (clusterctl's
	// template variables), a placeholder not named keeping its default.
	// For a release built from its source at the tag, a module the proxy
	// refuses is read from its folder in that source (module/sub: sub/).
	samplesModule string
	sampleVars    map[string]string
	// releaseKinds: its releases define different kinds (older ones
	// fewer); the seeds of a kind the release's CRDs do not define are
	// left out, and logged.
	releaseKinds bool
	// objects is a file of the suite's own objects in testdata/webhooks/NAME
	// (optional), checked like the samples.
	objects string
	// manifests are the module files with its MutatingWebhookConfigurations
	// (one per controller of the operator).
	manifests []string
	// kubeconfig: the webhook reads the cluster (a controller-runtime
	// manager's client), so its process gets the API server's kubeconfig
	// as KUBECONFIG.
	kubeconfig bool
	// configs are globs in the operator's module of the configuration
	// objects its install creates and its webhook reads from the cluster
	// (KServe's inferenceservice-config ConfigMap): created in the API
	// server as the module ships them, each in its own namespace (created
	// if needed), before the webhook is probed. They need kubeconfig.
	configs []string
	// env configures the webhook process as the operator's install does.
	env []string
	// probe is created (dry run) until probed says the webhook mutated it.
	probe  map[string]any
	probed func(*unstructured.Unstructured) bool
	// notFilled are the fields its webhook writes that cmp-defaults does
	// not fill (docs/webhooks.md lists them with the same reasons): a
	// sample may differ there and nowhere else.
	notFilled []notFilled
	// learned checks operator-specific findings of a learning run (its
	// stdout and report); may be nil.
	learned func(t *testing.T, stdout string, report learnReport, leftOut map[string]string)
	// releases are the builds of the webhook module, one go.mod each.
	releases []webhookRelease
	// release is the operator release a version of module is (Knative's
	// knative.dev/eventing v0.49.2 is release v1.22.2); nil: the same.
	release func(moduleVersion string) string
}

// webhookRelease is one release whose webhook is learned: the go.mod of the
// webhook module that pins it (go build -modfile; go.mod pins the newest)
// and the build tags of the way it serves its webhook.
type webhookRelease struct {
	modfile, tags string
	// always: checked in every run of the suite (the newest); the others
	// only when E2E_<NAME>_RELEASES is "all" (scripts/learn-webhooks.sh)
	// or names them: each costs a cold build of other k8s.io versions.
	always bool
}

// modfileReleases are the builds of test/e2e/webhook-NAME: one per
// go.vV.mod (scripts/webhook-release.sh writes them), oldest first, and
// go.mod, the newest, checked in every run; tags gives the build tags of
// module version V ("" none).
func modfileReleases(name string, tags func(version string) string) []webhookRelease {
	files, _ := filepath.Glob(filepath.Join("..", "webhook-"+name, "go.v*.mod"))
	version := func(f string) string { return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "go."), ".mod") }
	slices.SortFunc(files, func(a, b string) int { return compareVersions(version(a), version(b)) })
	var out []webhookRelease
	for _, f := range files {
		out = append(out, webhookRelease{modfile: filepath.Base(f), tags: tags(version(f))})
	}
	return append(out, webhookRelease{modfile: "go.mod", always: true})
}

// below is the build tags of the releases whose minor version is below
// minor.
type below struct {
	minor int
	tags  string
}

// tagsByMinor gives a release the tags of the first bound its minor
// version is below (bounds in rising order), else rest.
func tagsByMinor(rest string, bounds ...below) func(string) string {
	return func(v string) string {
		for _, b := range bounds {
			if minorOf(v) < b.minor {
				return b.tags
			}
		}
		return rest
	}
}

// learnedPaths is a learn check that only asks for a rule at each path.
func learnedPaths(paths ...string) func(*testing.T, string, learnReport, map[string]string) {
	return func(t *testing.T, stdout string, _ learnReport, _ map[string]string) { hasLearned(t, stdout, paths...) }
}

// hasLearned fails t for each path that no rule of a learned profile
// (stdout of profiles learn) names.
func hasLearned(t *testing.T, stdout string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if !strings.Contains(stdout, "path: "+p+"\n") {
			t.Errorf("not learned: %s", p)
		}
	}
}

// before is a variant function: the releases of a minor version below
// minor are tested as *v (set in init, so taken when the test runs).
func before(minor int, v **webhookOperator) func(string) *webhookOperator {
	return func(release string) *webhookOperator {
		if release != "newest" && minorOf(release) < minor {
			return *v
		}
		return nil
	}
}

// minorOf is the Y of version vX.Y.Z.
func minorOf(v string) int {
	var major, minor int
	fmt.Sscanf(v, "v%d.%d", &major, &minor)
	return minor
}

// namespace is where the operator's objects are created.
func (op *webhookOperator) namespace() string { return op.name + "-learn" }

// run is the operator's test: a subtest per release.
func (op *webhookOperator) run(t *testing.T) {
	env := "E2E_" + strings.ToUpper(strings.ReplaceAll(op.name, "-", "_")) + "_RELEASES"
	for _, r := range op.releases {
		name := strings.TrimSuffix(strings.TrimPrefix(r.modfile, "go."), ".mod")
		if name == "mod" {
			name = "newest"
		}
		t.Run(name, func(t *testing.T) {
			if !selected(r.always, name, os.Getenv(env)) {
				t.Skip("checked with " + env + "=all (scripts/learn-webhooks.sh) or =" + name)
			}
			rop := op
			if op.variant != nil {
				if v := op.variant(name); v != nil {
					rop = v
				}
			}
			rop.testRelease(t, r)
		})
	}
}

// selected: env unset runs the releases marked always, "all" every
// release, a comma-separated list of names (v1.20.2,newest) those only.
func selected(always bool, name, env string) bool {
	switch env {
	case "":
		return always
	case "all":
		return true
	}
	return slices.Contains(strings.Split(env, ","), name)
}

func (op *webhookOperator) testRelease(t *testing.T, r webhookRelease) {
	flags := []string{"-modfile=" + r.modfile}
	if r.tags != "" {
		flags = append(flags, "-tags="+r.tags)
	}
	w, s, a, crdFiles, crds := op.start(t, flags)
	tag := w.Version
	if op.release != nil {
		tag = op.release(w.Version)
	}
	release := strings.TrimPrefix(tag, "v")
	dir := filepath.Join("testdata", "webhooks", op.name)
	if op.testdata != "" {
		dir = filepath.Join("testdata", "webhooks", op.testdata)
	}

	t.Run("learn", func(t *testing.T) {
		// Beyond the release's CRD defaults only: the module's CRDs under
		// names of their own (--as OPERATOR@X would override the shipped
		// release from its profile's CRD defaults).
		crdProfile := extractProfile(t, op.name+"-crds", tag, crdFiles...)
		seeds := filepath.Join(dir, "seeds.yaml")
		if op.releaseKinds {
			seeds = a.definedSeeds(t, seeds)
		}
		vary, leftOut := a.acceptedVariations(t, seeds, filepath.Join(dir, "vary.yaml"), op.namespace())
		report := filepath.Join(t.TempDir(), "report.json")
		args := []string{"profiles", "learn", "--kubeconfig", s.kubeconfig, "--second-context", "editor",
			"--as", op.name + "-webhook@" + release, "--operator", op.name + "-crds@" + release, "--profiles-dir", crdProfile,
			"--vary", vary, "--report", report, seeds}
		first := runBinary(t, "", args...)
		if first.code != 0 {
			t.Fatalf("profiles learn: exit %d\n%s", first.code, first.stderr)
		}
		t.Logf("report:\n%s", first.stderr)
		if op.learned != nil {
			op.learned(t, first.stdout, readLearnReport(t, report), leftOut)
		}
		again := runBinary(t, "", args...)
		if again.stdout != first.stdout {
			t.Errorf("learning twice gives other bytes:\n%s\n---\n%s", first.stdout, again.stdout)
		}
		got := shippable(first.stdout, s.host, w, op.name+"-webhook", op.operator)
		if len(leftOut) > 0 {
			var notes []string
			for _, p := range slices.Sorted(maps.Keys(leftOut)) {
				notes = append(notes, p+" ("+leftOut[p]+")")
			}
			got = "# Inputs left out (the release's CRDs reject these values of vary.yaml): " + strings.Join(notes, ", ") + "\n" + got
		}
		checkLearned(t, filepath.Join(repoRoot(), "scripts", "learned", op.operator, tag+".yaml"), got, w.Ref())
	})

	fillArgs := []string{"--operator", op.operator + "@" + release}
	for _, o := range op.alongside {
		fillArgs = append(fillArgs, "--operator", o+"@"+release)
	}
	if op.objects != "" {
		t.Run("own-objects", func(t *testing.T) {
			objs := a.accepted(t, readObjects(t, filepath.Join(dir, op.objects)), op.namespace())
			requireSyncedExcept(t, a.run(t, scenario{id: op.name + "-own", crds: crds, objects: objs, fillArgs: fillArgs, metadata: op.metadata}), op.notFilled)
		})
	}
	t.Run("upstream-samples", func(t *testing.T) {
		dir := w.Dir
		if op.samplesModule != "" {
			var err error
			dir, err = downloadModule(filepath.Join("..", "webhook-"+op.name), op.samplesModule+"@"+w.Version)
			if sub, ok := strings.CutPrefix(op.samplesModule, op.module+"/"); err != nil && ok && w.Commit != "" {
				// A release built from its source at the tag: the
				// module's folder in that same source.
				dir, err = filepath.Join(w.Dir, sub), nil
				t.Logf("%s@%s from the source at commit %s (%s/)", op.samplesModule, w.Version, w.Commit, sub)
			}
			if err != nil && !r.always {
				t.Skipf("the samples are not at hand: %v", err)
			} else if err != nil {
				t.Fatal(err)
			}
		}
		objs := a.accepted(t, op.moduleSamples(t, dir), op.namespace())
		if len(objs) == 0 {
			t.Skip("no samples in the module")
		}
		requireSyncedExcept(t, a.run(t, scenario{id: op.name + "-samples", crds: crds, objects: objs, fillArgs: fillArgs, metadata: op.metadata}), op.notFilled)
		t.Logf("%d upstream sample objects of %s accepted by the server and checked", len(objs), strings.Join(op.groups, ", "))
	})
}

// start builds and starts the webhook (with flags) and an API server with
// the release's CRDs and the webhook in its admission chain, once it is
// called.
func (op *webhookOperator) start(t *testing.T, flags []string) (*operatorWebhook, *server, *argo, []string, []*apiextv1.CustomResourceDefinition) {
	t.Helper()
	env := append(slices.Clone(op.env), "OPERATOR_MODULE_DIR="+moduleDir(t, op.name, op.module, flags...))
	s := startServer(t)
	if op.kubeconfig {
		env = append(env, "KUBECONFIG="+s.kubeconfig)
	}
	w := startOperatorWebhookBuild(t, op.name, flags, env...)
	a := newArgo(t, s.cfg)
	var crdFiles []string
	for _, g := range op.crds {
		m, _ := filepath.Glob(filepath.Join(w.Dir, g))
		crdFiles = append(crdFiles, m...)
	}
	if len(crdFiles) == 0 {
		t.Fatalf("no CRDs at %v in %s", op.crds, w.Dir)
	}
	crds := readCRDs(t, crdFiles...)
	for _, c := range crds {
		// The CRDs name the operator's conversion webhook by its
		// Service: this process serves it.
		w.PointConversion(c)
	}
	a.installCRDs(t, crds)
	a.createConfigs(t, w.Dir, op.configs)
	registered := 0
	for _, m := range op.manifests {
		prefix := "" // several controllers' manifests: named apart by their folder
		if len(op.manifests) > 1 {
			prefix = strings.ReplaceAll(filepath.Dir(m), "/", "-") + "-"
			if _, err := os.Stat(filepath.Join(w.Dir, m)); err != nil {
				continue // another release's layout
			}
		}
		a.registerOperatorWebhooks(t, w, m, prefix)
		registered++
	}
	if registered == 0 {
		t.Fatalf("none of %v in %s", op.manifests, w.Dir)
	}
	a.ensureNamespace(t, op.namespace())
	for _, ns := range op.namespaces {
		a.ensureNamespace(t, ns)
	}
	probe := &unstructured.Unstructured{Object: op.probe}
	probe.SetNamespace(op.namespace())
	a.waitAdmitted(t, probe, op.probed)
	return w, s, a, crdFiles, crds
}

// createConfigs creates the objects of the files that globs match in dir
// (webhookOperator.configs) as they are written, each in the namespace it
// names; a glob that matches nothing fails the test.
func (a *argo) createConfigs(t *testing.T, dir string, globs []string) {
	t.Helper()
	for _, g := range globs {
		files, _ := filepath.Glob(filepath.Join(dir, g))
		if len(files) == 0 {
			t.Fatalf("no configuration at %s in %s", g, dir)
		}
		for _, o := range readObjects(t, files...) {
			r := a.dyn.Resource(a.mapping(t, o).Resource)
			var err error
			if ns := o.GetNamespace(); ns != "" {
				a.ensureNamespace(t, ns)
				_, err = r.Namespace(ns).Create(context.Background(), o, metav1.CreateOptions{})
			} else {
				_, err = r.Create(context.Background(), o, metav1.CreateOptions{})
			}
			if err != nil {
				t.Fatalf("%s %s/%s of %s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), g, err)
			}
		}
	}
}

// moduleSamples reads the operator's samples of its own API group, each
// under a name of its own (several samples share a name).
func (op *webhookOperator) moduleSamples(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, g := range op.samples {
		files, _ := filepath.Glob(filepath.Join(dir, g))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if op.sampleVars != nil {
				data = substitute(t, f, data, op.sampleVars)
			}
			objs, err := parseObjects(data)
			if err != nil { // a template of the docs, not objects
				t.Logf("%s: not read: %v", strings.TrimPrefix(f, dir+"/"), err)
				continue
			}
			for _, o := range objs {
				if !slices.ContainsFunc(op.groups, func(g string) bool {
					return o.GetAPIVersion() == g || strings.HasPrefix(o.GetAPIVersion(), g+"/")
				}) {
					continue
				}
				name := o.GetName()
				if name == "" { // generateName: the suite needs a name to compare
					name = strings.TrimSuffix(o.GetGenerateName(), "-")
					o.SetGenerateName("")
				}
				o.SetName(strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), "_", "-")) + "-" + name)
				o.SetNamespace("")
				out = append(out, o)
			}
		}
	}
	return out
}

// parseObjects reads a YAML or JSON stream of objects, or says why it
// cannot.
func parseObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// placeholder is a clusterctl template variable: ${NAME}, ${NAME:=default}
// or ${NAME:-default}; a default may itself be a placeholder, replaced
// first.
var placeholder = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[=-]([^}$]*))?\}`)

// substitute replaces the placeholders of a template by vars, or by their
// defaults, innermost first; one with neither fails the test.
func substitute(t *testing.T, file string, data []byte, vars map[string]string) []byte {
	t.Helper()
	for range 3 {
		data = placeholder.ReplaceAllFunc(data, func(m []byte) []byte {
			sub := placeholder.FindSubmatch(m)
			if v, ok := vars[string(sub[1])]; ok {
				return []byte(v)
			}
			if sub[2] != nil {
				return sub[2]
			}
			t.Fatalf("%s: no value for %s", file, sub[0])
			return nil
		})
	}
	return data
}

// downloadModule is the directory of module@version in the Go module
// cache, downloaded through the module proxy if needed (by the go command
// of the webhook module in src, whose toolchain it selects).
func downloadModule(src, modVersion string) (string, error) {
	cmd, err := e2ekit.GoCommand(src, "mod", "download", "-json", modVersion)
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); err != nil || jerr != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s %s", modVersion, err, m.Error, strings.TrimSpace(stderr.String()))
	}
	return m.Dir, nil
}

// definedSeeds is file, or a copy without the objects of kinds the API
// server does not serve (the release's CRDs do not define them).
func (a *argo) definedSeeds(t *testing.T, file string) string {
	t.Helper()
	var kept []*unstructured.Unstructured
	var missing []string
	for _, o := range readObjects(t, file) {
		gvk := o.GroupVersionKind()
		if _, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			if !slices.Contains(missing, gvk.String()) {
				missing = append(missing, gvk.String())
			}
			continue
		}
		kept = append(kept, o)
	}
	if len(missing) == 0 {
		return file
	}
	t.Logf("seeds left out, of kinds the release's CRDs do not define: %s", strings.Join(missing, ", "))
	return writeObjects(t, kept)
}
