package apiserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// testCLI drives 'cmp-defaults check' and 'profiles extract --from-cluster'
// against the API server, through a kubeconfig as a user would. It needs
// only the suite's own files: an ExternalSecret CRD built from the shipped
// external-secrets v2.5.0 profile, and the widgets CRD.
func testCLI(t *testing.T, s *server, a *argo) {
	widgetsCRD := filepath.Join("testdata", "widgets", "crd.yaml")
	// ESO v2.5.0's ExternalSecret CRD as this repository's shipped profile
	// describes it (upstream CRDs are never copied in), and the widgets CRD.
	a.installCRDs(t, append(readCRDs(t, widgetsCRD), crdFromProfile(t, "external-secrets/v2.5.0.yaml", "ExternalSecret", "externalsecrets", filepath.Join("testdata", "external-secrets", "objects.yaml"))))
	a.ensureNamespace(t, "datadog")
	a.ensureNamespace(t, "app")
	// The ExternalSecrets of the release tests.
	objects := filepath.Join(t.TempDir(), "externalsecrets.yaml")
	var es []string
	for _, o := range readObjects(t, filepath.Join("testdata", "external-secrets", "objects.yaml")) {
		if o.GetKind() == "ExternalSecret" {
			b, _ := yaml.Marshal(o.Object)
			es = append(es, string(b))
		}
	}
	if err := os.WriteFile(objects, []byte(strings.Join(es, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	kc := []string{"--kubeconfig", s.kubeconfig}

	t.Run("check/matching-release", func(t *testing.T) {
		r := runBinary(t, "", append(append([]string{"check"}, kc...), "--operator", "external-secrets@2.5.0", objects)...)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{"# cluster " + s.host, "external-secrets@2.5.0: profile v2.5.0", "2 object(s): 2 match the cluster, 0 differ"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
			}
		}
	})

	t.Run("check/no-operator", func(t *testing.T) {
		// Nothing filled: the cluster adds the defaults.
		r := runBinary(t, "", append(append([]string{"check"}, kc...), objects)...)
		if r.code != 3 {
			t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{
			`+ .spec.data[0].remoteRef.nullBytePolicy = "Ignore"  the cluster adds this field`,
			`+ .spec.target.deletionPolicy = "Retain"`,
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
			}
		}
		if !strings.Contains(r.stderr, "object(s) differ") {
			t.Errorf("stderr: %s", r.stderr)
		}
		t.Logf("check without --operator:\n%s", r.stdout)
	})

	t.Run("check/other-release", func(t *testing.T) {
		// Profile of v2.7.0 on a cluster with the v2.5.0 CRDs: the cluster
		// adds nullBytePolicy, which the v2.7.0 profile does not fill.
		if r := runBinary(t, "", append(append([]string{"check"}, kc...), "--operator", "external-secrets@2.7.0", objects)...); r.code == 3 {
			t.Logf("check with the v2.7.0 profile on v2.5.0 CRDs:\n%s", r.stdout)
		}
		r := runBinary(t, "", append(append([]string{"check"}, kc...), "--operator", "external-secrets@2.7.0", "-o", "json", objects)...)
		if r.code != 3 {
			t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		var rep struct {
			Objects []struct {
				Kind, Name string
				Notes      []string
				Findings   []struct{ Kind, Path string }
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("-o json: %v\n%s", err, r.stdout)
		}
		found := false
		for _, o := range rep.Objects {
			for _, f := range o.Findings {
				if o.Name == "datadog-api-key" && f.Kind == "added" && f.Path == ".spec.data[0].remoteRef.nullBytePolicy" {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("no finding added .spec.data[0].remoteRef.nullBytePolicy for datadog-api-key:\n%s", r.stdout)
		}
		// v2.7.0 defaults a field the v2.5.0 schema lacks: server-side apply
		// refuses the filled object, the dry-run create prunes the field.
		found = false
		for _, o := range rep.Objects {
			for _, f := range o.Findings {
				if o.Name == "app-config" && f.Kind == "removed" && strings.Contains(strings.Join(o.Notes, " "), "server-side apply rejects the filled object") {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("no removed field and note for app-config:\n%s", r.stdout)
		}
	})

	t.Run("check/corrupted-profile", func(t *testing.T) {
		// A user profile that fills a wrong value: invisible to admission of
		// the filled object alone, caught by the dry run of the object as
		// written.
		shipped := runBinary(t, "", "profiles", "show", "external-secrets@2.5.0")
		dir := t.TempDir()
		p := filepath.Join(dir, "external-secrets", "v2.5.0.yaml")
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		bad := strings.Replace(shipped.stdout, "      - path: .spec.data[].remoteRef.nullBytePolicy\n        type: string\n        value: Ignore\n", "      - path: .spec.data[].remoteRef.nullBytePolicy\n        type: string\n        value: Fail\n", 1)
		if bad == shipped.stdout {
			t.Fatal("could not corrupt the profile")
		}
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBinary(t, "", append(append([]string{"check"}, kc...), "--operator", "external-secrets@2.5.0", "--profiles-dir", dir, objects)...)
		if r.code != 3 {
			t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		want := `≠ .spec.data[0].remoteRef.nullBytePolicy = "Fail"  filled, but this cluster defaults "Ignore"`
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	})

	t.Run("check/existing-objects", func(t *testing.T) {
		// Objects stored already (synced without cmp-defaults) are checked
		// as on their first sync, not merged with what is stored.
		for _, o := range readObjects(t, objects) {
			a.sync(t, o, serverSideApply)
		}
		r := runBinary(t, "", append(append([]string{"check"}, kc...), "--operator", "external-secrets@2.5.0", objects)...)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("check/directory-and-stdin", func(t *testing.T) {
		dir := t.TempDir()
		data, _ := os.ReadFile(objects)
		_ = os.WriteFile(filepath.Join(dir, "es.yaml"), data, 0o644)
		r := runBinary(t, "", append(append([]string{"check"}, kc...), "--operator", "external-secrets@2.5.0", dir)...)
		if r.code != 0 {
			t.Fatalf("directory: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		r = runBinary(t, string(data), append(append([]string{"check"}, kc...), "--operator", "external-secrets@2.5.0", "-")...)
		if r.code != 0 || !strings.Contains(r.stdout, "(stdin: document 1") {
			t.Fatalf("stdin: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("check/built-in-kinds", func(t *testing.T) {
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: app}\ndata: {a: b}\n"
		r := runBinary(t, cm, append(append([]string{"check"}, kc...), "-")...)
		if r.code != 0 || !strings.Contains(r.stdout, "skipped: built-in kind") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		r = runBinary(t, cm, append(append([]string{"check"}, kc...), "--all-kinds", "-")...)
		if r.code != 0 || !strings.Contains(r.stdout, "1 match the cluster") {
			t.Fatalf("--all-kinds: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})

	// Errors: exit 1, empty stdout, a message that says what to do.
	errorCases := []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{
		{"unreachable", "", []string{"check", "--kubeconfig", unreachableKubeconfig(t), objects},
			[]string{"cannot reach the API server at https://127.0.0.1:1", "check --kubeconfig and --context"}},
		{"bad-credentials", "", []string{"check", "--kubeconfig", badTokenKubeconfig(t, s), objects},
			[]string{"rejected the credentials (401 Unauthorized)", "log in again"}},
		{"missing-kubeconfig", "", []string{"check", "--kubeconfig", filepath.Join(t.TempDir(), "nope"), objects},
			[]string{"kubeconfig", "no such file or directory"}},
		{"unknown-context", "", []string{"check", "--kubeconfig", s.kubeconfig, "--context", "prod", objects},
			[]string{`context "prod" is not in kubeconfig`, "contexts: admin, editor, viewer"}},
		{"forbidden", "", []string{"check", "--kubeconfig", s.kubeconfig, "--context", "viewer", "--operator", "external-secrets@2.5.0", objects},
			[]string{"not allowed to", `User "e2e-viewer" cannot get resource "externalsecrets"`, "needs the verbs get, create and patch on externalsecrets.external-secrets.io in namespace datadog"}},
		{"unknown-kind", "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: app}\nspec: {}\n", []string{"check", "--kubeconfig", s.kubeconfig, "-"},
			[]string{"the cluster does not serve example.com/v1 Gadget: no CustomResourceDefinition for it is installed"}},
		{"unserved-version", "apiVersion: external-secrets.io/v9\nkind: ExternalSecret\nmetadata: {name: x, namespace: app}\nspec: {}\n", []string{"check", "--kubeconfig", s.kubeconfig, "-"},
			[]string{"the cluster does not serve external-secrets.io/v9 ExternalSecret: group external-secrets.io is served in"}},
		{"missing-namespace", "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: x, namespace: nowhere}\nspec: {secretStoreRef: {name: s}}\n", []string{"check", "--kubeconfig", s.kubeconfig, "-"},
			[]string{"namespace nowhere does not exist"}},
		{"invalid-object", "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: x, namespace: app}\nspec: {refreshInterval: 5}\n", []string{"check", "--kubeconfig", s.kubeconfig, "-"},
			[]string{"the cluster rejects ExternalSecret app/x", "refreshInterval"}},
		{"extract-forbidden", "", []string{"profiles", "extract", "--from-cluster", "--kubeconfig", s.kubeconfig, "--context", "viewer", "--operator", "x", "--version", "1.0.0"},
			[]string{"not allowed to list CustomResourceDefinitions", "needs the verbs list on customresourcedefinitions.apiextensions.k8s.io"}},
		{"extract-unknown-group", "", []string{"profiles", "extract", "--from-cluster", "--kubeconfig", s.kubeconfig, "--operator", "x", "--version", "1.0.0", "--group", "nope.example.com"},
			[]string{"no CustomResourceDefinition of group nope.example.com", "groups with CRDs: ", "external-secrets.io"}},
		{"extract-unreachable", "", []string{"profiles", "extract", "--from-cluster", "--kubeconfig", unreachableKubeconfig(t), "--operator", "x", "--version", "1.0.0"},
			[]string{"cannot reach the API server at https://127.0.0.1:1"}},
	}
	for _, c := range errorCases {
		t.Run("errors/"+c.name, func(t *testing.T) {
			r := runBinary(t, c.stdin, c.args...)
			if r.code != 1 || r.stdout != "" {
				t.Fatalf("exit %d (want 1), stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}

	t.Run("extract/from-cluster", func(t *testing.T) {
		r := runBinary(t, "", append(append([]string{"profiles", "extract", "--from-cluster"}, kc...),
			"--operator", "widgets", "--version", "1.0.0", "--group", "e2e.cmp-defaults.io")...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		files := runBinary(t, "", "profiles", "extract", "--operator", "widgets", "--version", "1.0.0", widgetsCRD)
		if files.code != 0 {
			t.Fatalf("extract from files: %s", files.stderr)
		}
		if got, want := dropDescription(r.stdout), dropDescription(files.stdout); got != want || !strings.Contains(got, "kind: Widget") {
			t.Errorf("extract --from-cluster differs from extract of the same CRD file:\n--- cluster\n%s\n--- files\n%s", got, want)
		}
		// Without --group: every CRD, with a warning naming the groups.
		r = runBinary(t, "", append(append([]string{"profiles", "extract", "--from-cluster"}, kc...), "--operator", "all", "--version", "1.0.0")...)
		if r.code != 0 || !strings.Contains(r.stderr, "no --group: the profile covers every CRD of the cluster") || !strings.Contains(r.stdout, "kind: ExternalSecret") || !strings.Contains(r.stdout, "kind: Widget") {
			t.Errorf("without --group: exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		// --write, then usable at once: a check with it passes.
		dir := t.TempDir()
		r = runBinary(t, "", append(append([]string{"profiles", "extract", "--from-cluster"}, kc...),
			"--operator", "widgets", "--version", "1.0.0", "--group", "e2e.cmp-defaults.io", "--write", dir)...)
		if r.code != 0 || !strings.Contains(r.stderr, "wrote "+filepath.Join(dir, "widgets_v1.0.0.yaml")) {
			t.Fatalf("--write: exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		r = runBinary(t, "", append(append([]string{"check"}, kc...), "--operator", "widgets@1.0.0", "--profiles-dir", dir, filepath.Join("testdata", "widgets", "widgets.yaml"))...)
		if r.code != 0 || !strings.Contains(r.stdout, "user:"+dir) || !strings.Contains(r.stdout, "7 object(s): 7 match the cluster") {
			t.Fatalf("check with the extracted profile: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("extract/usage", func(t *testing.T) {
		r := runBinary(t, "", "profiles", "extract", "--from-cluster", "--kubeconfig", s.kubeconfig, "--operator", "x", "--version", "1.0.0", "crds.yaml")
		if r.code != 2 || !strings.Contains(r.stderr, "pass no CRD files") {
			t.Errorf("files with --from-cluster: exit %d: %s", r.code, r.stderr)
		}
		r = runBinary(t, "", "profiles", "extract", "--kubeconfig", s.kubeconfig, "--operator", "x", "--version", "1.0.0", widgetsCRD)
		if r.code != 2 || !strings.Contains(r.stderr, "--kubeconfig needs --from-cluster") {
			t.Errorf("--kubeconfig without --from-cluster: exit %d: %s", r.code, r.stderr)
		}
	})
}

func dropDescription(profile string) string {
	var keep []string
	for _, l := range strings.Split(profile, "\n") {
		if !strings.HasPrefix(l, "description:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// badTokenKubeconfig points at the server with a token it does not know.
func badTokenKubeconfig(t *testing.T, s *server) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "` + s.host + `", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: not-a-token}}]
contexts: [{name: e2e, context: {cluster: e2e, user: u}}]
current-context: e2e
`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// unreachableKubeconfig points at a port nothing listens on.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: gone, context: {cluster: gone, user: u}}]
current-context: gone
`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
