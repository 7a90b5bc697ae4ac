package operators

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCanonicalVersion(t *testing.T) {
	for in, want := range map[string]string{"2.5.0": "v2.5.0", "v1.19.1": "v1.19.1", " 0.9.0 ": "v0.9.0"} {
		if got, err := CanonicalVersion(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "2.5", "v2", "latest", "2.5.0.1"} {
		if _, err := CanonicalVersion(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

const prof = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: %s
resources:
  - {group: acme.io, version: v1, kind: Thing, defaults: [{path: .spec.x, type: string, value: "%s"}]}
`

func TestResolve(t *testing.T) {
	fsys := fstest.MapFS{
		"acme/v1.0.0.yaml": {Data: []byte(strings.ReplaceAll(strings.Replace(prof, "%s", "v1.0.0", 1), "%s", "one"))},
		"acme/v1.2.0.yaml": {Data: []byte(strings.ReplaceAll(strings.Replace(prof, "%s", "v1.2.0", 1), "%s", "two"))},
		"acme/index.yaml": {Data: []byte(`apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorIndex
operator: acme
releases:
  - {version: v1.0.0, profile: v1.0.0}
  - {version: v1.1.0, profile: v1.0.0}
  - {version: v1.2.0, profile: v1.2.0}
  - {version: v1.2.1, profile: v1.2.0}
`)},
	}
	st, err := Load(LoadOptions{Embedded: fsys})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ver, profile, warn, err string
	}{
		{ver: "1.1.0", profile: "v1.0.0"},
		{ver: "v1.2.1", profile: "v1.2.0"},
		{ver: "1.2.0", profile: "v1.2.0"},
		{ver: "1.1.5", profile: "v1.0.0", warn: "not a checked release"},
		{ver: "1.2.7", profile: "v1.2.0", warn: "newer than every checked release (newest: v1.2.1)"},
		{ver: "1.3.0", err: "acme@1.3.0 is newer than every checked release and not a patch of the newest, v1.2.1"},
		{ver: "2.0.0", err: "acme@2.0.0 is newer than every checked release and not a patch of the newest, v1.2.1"},
		{ver: "0.9.0", err: "older than the oldest known release v1.0.0"},
	} {
		r, err := st.Resolve("acme", tc.ver, false)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want error %q", tc.ver, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.ver, err)
		case r.Profile.Version != tc.profile || !strings.Contains(r.Warning, tc.warn) || (tc.warn == "" && r.Warning != ""):
			t.Errorf("%s: got profile %s warning %q", tc.ver, r.Profile.Version, r.Warning)
		}
		if tc.warn != "" {
			if _, err := st.Resolve("acme", tc.ver, true); err == nil {
				t.Errorf("%s: strict should fail", tc.ver)
			}
		}
	}
	if _, err := st.Resolve("nope", "1.0.0", false); err == nil || !strings.Contains(err.Error(), "known operators: acme") {
		t.Errorf("unknown operator: %v", err)
	}
	if n, errs := Lint(st); len(errs) > 0 || n != 2 {
		t.Errorf("lint: %d %v", n, errs)
	}
}

// A shipped index is parsed when its operator is first used: a broken one
// fails every use of that operator, naming the file, and no other.
func TestShippedIndexParsedOnUse(t *testing.T) {
	fsys := fstest.MapFS{
		"acme/v1.0.0.yaml":  {Data: []byte(strings.ReplaceAll(strings.Replace(prof, "%s", "v1.0.0", 1), "%s", "one"))},
		"acme/index.yaml":   {Data: []byte("apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorIndex\noperator: acme\nreleases:\n  - {version: v1.0.0, profile: nope}\n")},
		"other/v1.0.0.yaml": {Data: []byte(strings.ReplaceAll(strings.Replace(strings.Replace(prof, "acme", "other", 1), "%s", "v1.0.0", 1), "%s", "one"))},
	}
	st, err := Load(LoadOptions{Embedded: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Resolve("other", "1.0.0", false); err != nil {
		t.Errorf("other operator: %v", err)
	}
	want := "profiles/acme/index.yaml"
	if _, err := st.Resolve("acme", "1.0.0", false); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("resolve: got %v, want an error naming %s", err, want)
	}
	if _, err := st.Summaries(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("summaries: got %v, want an error naming %s", err, want)
	}
	if _, errs := Lint(st); len(errs) == 0 || !strings.Contains(errors.Join(errs...).Error(), want) {
		t.Errorf("lint: got %v, want an error naming %s", errs, want)
	}
}

func TestNonDeterministicJQIsRefused(t *testing.T) {
	for _, e := range []string{"now", ".a | now", "$ENV.HOME", "env.HOME", "$__loc__", "input", "[inputs]", "localtime", "{a: now}", "if .a then now else 1 end", "debug"} {
		if _, err := CompileJQ(e, false); err == nil || !strings.Contains(err.Error(), "same result for the same object") {
			t.Errorf("%s: got %v", e, err)
		}
	}
	for _, e := range []string{".spec.x", "limit(3; .a)", ".a | strftime(\"%Y\")", `.metadata.annotations["now"]`} {
		if _, err := CompileJQ(e, false); err != nil {
			t.Errorf("%s: %v", e, err)
		}
	}
}

func TestBuiltinGroups(t *testing.T) {
	for g, want := range map[string]bool{"": true, "apps": true, "batch": true, "networking.k8s.io": true, "rbac.authorization.k8s.io": true,
		"external-secrets.io": false, "cert-manager.io": false, "gateway.networking.k8s.io": false, "snapshot.storage.k8s.io": false} {
		if IsBuiltinGroup(g) != want {
			t.Errorf("%q: got %v", g, !want)
		}
	}
}

// An index's webhooks are read with canonical versions, and a range that
// runs backwards or a webhook without rules is an error with its line.
func TestIndexWebhooks(t *testing.T) {
	const head = "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorIndex\noperator: acme\nreleases:\n  - {version: v1.0.0, profile: v1.0.0}\nwebhooks:\n"
	rule := "    rules: [{apiGroups: [acme.io], apiVersions: [v1], resources: [things], operations: [CREATE]}]\n"
	ix, err := ParseIndex("index.yaml", []byte(head+"  - name: mthing.acme.io\n    from: 1.0.0\n    to: v1.2.0\n    file: config/webhook/manifests.yaml\n"+rule))
	if err != nil {
		t.Fatal(err)
	}
	if w := ix.Webhooks; len(w) != 1 || w[0].From != "v1.0.0" || w[0].To != "v1.2.0" || w[0].Rules[0].Resources[0] != "things" {
		t.Errorf("webhooks: %+v", w)
	}
	for _, c := range []struct{ body, want string }{
		{"  - name: m\n    from: v1.3.0\n    to: v1.2.0\n    file: f.yaml\n" + rule, "index.yaml:7: webhook m: from v1.3.0 is after to v1.2.0"},
		{"  - name: m\n    from: v1.0.0\n    to: v1.2.0\n    file: f.yaml\n", "index.yaml:7: a webhook needs name, file and rules"},
		{"  - name: m\n    from: latest\n    to: v1.2.0\n    file: f.yaml\n" + rule, `index.yaml:7: webhook m: from: version "latest" is not a release version`},
	} {
		if _, err := ParseIndex("index.yaml", []byte(head+c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// A release whose webhook defaults are learned for some kinds keeps the
// kinds of its other webhooks unknown (webhookUnknown), in the YAML and the
// compiled form; webhookUnknown without a webhook, or beside mutations, is
// an error.
func TestWebhookUnknownPerKind(t *testing.T) {
	const prof = "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: acme\nversion: v1.0.0\nresources:\n" +
		"  - {group: acme.io, version: v1, kind: Thing, webhook: mthing, mutations: [{path: .spec.a, value: 1}]}\n" +
		"  - {group: acme.io, version: v1, kind: Other, webhook: mother, webhookUnknown: true}\n"
	p, err := ParseProfile("p.yaml", []byte(prof))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := CompileFile("p.yaml", []byte(prof))
	if err != nil {
		t.Fatal(err)
	}
	c, err := UnmarshalCompiled("p.bin", bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []*Profile{p, c} {
		state, _ := WebhookState(q, "learned from example.com/acme@v1.0.0")
		r := &Resolution{Operator: "acme", Requested: "v1.0.0", Profile: q, Webhooks: state}
		if got := r.UnknownWebhook("acme.io/v1", "Other") + "," + r.UnknownWebhook("acme.io/v1", "Thing"); state != WebhookLearned || got != "mother," {
			t.Errorf("state %s, unknown webhooks %q; want learned, \"mother,\"", state, got)
		}
	}
	for _, bad := range []string{
		"  - {group: acme.io, version: v1, kind: Other, webhookUnknown: true}\n",
		"  - {group: acme.io, version: v1, kind: Other, webhook: m, webhookUnknown: true, mutations: [{path: .spec.a, value: 1}]}\n",
	} {
		if _, err := ParseProfile("p.yaml", []byte(prof[:strings.Index(prof, "resources:\n")+11]+bad)); err == nil || !strings.Contains(err.Error(), "webhookUnknown needs") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
