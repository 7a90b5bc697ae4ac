package apiserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// learnReport is the part of 'profiles learn --report' the tests read.
type learnReport struct {
	Rules []struct {
		Kind, Path, When string
		Value            any
		Fields, Objects  int
	}
	Rewrites []struct {
		Kind, Path, When string
		From, To         any
	}
	NotLearned []struct {
		Kind, Path, Reason, Why string
		Values, Objects         []string
		IgnoreDifferences       *struct {
			Group, Kind       string
			JQPathExpressions []string
		}
	}
}

func readLearnReport(t *testing.T, file string) learnReport {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var r learnReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

// TestLearn: a real mutating webhook (HTTPS on loopback, its own CA,
// sideEffects None) defaults Gadgets; 'profiles learn' keeps what it adds
// as a profile, which fills the source offline; the filled objects are
// Synced in every Argo CD diff mode and equal to what the server stores.
func TestLearn(t *testing.T) {
	s := startServer(t)
	a := newArgo(t, s.cfg)
	crdFile := filepath.Join("testdata", "learn", "crd.yaml")
	objects := filepath.Join("testdata", "learn", "gadgets.yaml")
	crds := readCRDs(t, crdFile)
	a.installCRDs(t, crds)
	w := startWebhook(t)
	a.registerWebhook(t, w)
	a.ensureNamespace(t, "learn")
	// The CRD's schema default comes from the operator's profile.
	gadgets := extractProfile(t, "gadgets", "1.0.0", crdFile)
	kc := []string{"--kubeconfig", s.kubeconfig}
	learnArgs := func(report string, extra ...string) []string {
		return append(append(append([]string{"profiles", "learn"}, kc...),
			"--as", "prod-webhooks@2026.12.1", "--second-context", "editor", "--operator", "gadgets@1.0.0", "--profiles-dir", gadgets, "--report", report), extra...)
	}

	dir := t.TempDir()
	reportFile := filepath.Join(dir, "report.json")
	first := runBinary(t, "", learnArgs(reportFile, objects)...)
	if first.code != 0 {
		t.Fatalf("profiles learn: exit %d\nstdout:\n%s\nstderr:\n%s", first.code, first.stdout, first.stderr)
	}
	t.Logf("learned profile:\n%s\nreport:\n%s", first.stdout, first.stderr)
	rep := readLearnReport(t, reportFile)

	t.Run("rules", func(t *testing.T) {
		var got []string
		for _, r := range rep.Rules {
			v, _ := json.Marshal(r.Value)
			s := r.Path + " = " + string(v)
			if r.When != "" {
				s += " when " + r.When
			}
			got = append(got, s)
		}
		want := []string{
			`.metadata.annotations = {"webhooks.e2e.cmp-defaults.io/team":"platform"}`,
			`.spec.backend = {"port":8080,"tls":{"enabled":true,"minVersion":"1.2"}}`,
			`.spec.replicas = 3 when .spec.mode == "ha"`,
			`.spec.rules[] | select(.protocol == "HTTP") | .timeoutSeconds = 30`,
			`.spec.rules[].retries = 3`,
			`.spec.target.immutable = false when .spec.target.creationPolicy == "Owner"`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("learned\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		// The CRD default the operator's profile fills is not learned again.
		if strings.Contains(first.stdout, "size") {
			t.Errorf("learned the schema default the gadgets profile fills:\n%s", first.stdout)
		}
	})

	t.Run("identity-not-learned", func(t *testing.T) {
		if strings.Contains(first.stdout, requestUIDAnnotation) {
			t.Errorf("the profile holds the per-request annotation:\n%s", first.stdout)
		}
		found := false
		for _, f := range rep.NotLearned {
			if f.Path != `.metadata.annotations["`+requestUIDAnnotation+`"]` {
				continue
			}
			found = true
			written := 0 // objects as written; the learner's varied copies are named "(varied ...)"
			for _, o := range f.Objects {
				if !strings.Contains(o, "(varied ") {
					written++
				}
			}
			if f.Reason != "differs-between-dry-runs" || !strings.Contains(f.Why, "two dry runs of the same object got different values") || written != 4 {
				t.Errorf("finding: %+v", f)
			}
			ig := f.IgnoreDifferences
			if ig == nil || ig.Group != "learn.e2e.cmp-defaults.io" || ig.Kind != "Gadget" || len(ig.JQPathExpressions) != 1 || ig.JQPathExpressions[0] != `.metadata.annotations["`+requestUIDAnnotation+`"]` {
				t.Errorf("ignoreDifferences: %+v", ig)
			}
		}
		if !found {
			t.Errorf("the report does not name the identity annotation: %+v", rep.NotLearned)
		}
		if !strings.Contains(first.stderr, "[differs-between-dry-runs]") || !strings.Contains(first.stderr, `ignoreDifferences: [{group: "learn.e2e.cmp-defaults.io", kind: Gadget, jqPathExpressions: [".metadata.annotations[\"`+requestUIDAnnotation+`\"]"]}]`) {
			t.Errorf("text report:\n%s", first.stderr)
		}
	})

	version, err := a.core.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("identity-of-the-user", func(t *testing.T) {
		// The second dry run as another user: the creator annotation
		// differs between the runs and is reported, never learned.
		if strings.Contains(first.stdout, creatorAnnotation) {
			t.Errorf("learned the requesting user:\n%s", first.stdout)
		}
		found := false
		for _, f := range rep.NotLearned {
			if f.Path == `.metadata.annotations["`+creatorAnnotation+`"]` && f.Reason == "differs-between-dry-runs" && strings.Contains(strings.Join(f.Values, " "), `"e2e-admin" then "e2e-editor"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("the creator annotation is not reported as an identity: %+v", rep.NotLearned)
		}
		// One user: both runs agree on the creator, which passes for a
		// default; that is why learning takes a second user.
		one := runBinary(t, "", "profiles", "learn", "--kubeconfig", s.kubeconfig, "--as", "prod-webhooks@2026.12.1", "--operator", "gadgets@1.0.0", "--profiles-dir", gadgets, objects)
		if one.code != 0 || !strings.Contains(one.stdout, creatorAnnotation+": e2e-admin") {
			t.Errorf("one user: exit %d\n%s\n%s", one.code, one.stdout, one.stderr)
		}
	})

	t.Run("provenance", func(t *testing.T) {
		for _, want := range []string{"learned:", "cluster: " + s.host, "context: admin", "secondContext: editor", "serverVersion: " + version.GitVersion, "objects: 4", "- gadgets@1.0.0"} {
			if !strings.Contains(first.stdout, want) {
				t.Errorf("profile lacks %q:\n%s", want, first.stdout)
			}
		}
		if strings.Contains(first.stdout, "time:") {
			t.Errorf("a time without --learned-at or SOURCE_DATE_EPOCH:\n%s", first.stdout)
		}
		r := runBinary(t, "", learnArgs(filepath.Join(dir, "time.json"), "--learned-at", "2026-12-01T09:00:00Z", objects)...)
		if r.code != 0 || !strings.Contains(r.stdout, `time: "2026-12-01T09:00:00Z"`) || !strings.Contains(r.stderr, "at 2026-12-01T09:00:00Z") {
			t.Errorf("--learned-at: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("same-bytes", func(t *testing.T) {
		again := runBinary(t, "", learnArgs(filepath.Join(dir, "again.json"), objects)...)
		if again.code != 0 || again.stdout != first.stdout {
			t.Errorf("learning twice gives other bytes (exit %d):\n%s\n---\n%s\nstderr:\n%s", again.code, first.stdout, again.stdout, again.stderr)
		}
	})

	t.Run("json", func(t *testing.T) {
		r := runBinary(t, "", learnArgs(filepath.Join(dir, "json.json"), "-o", "json", objects)...)
		var p struct {
			Operator, Version string
			Learned           struct{ Objects int }
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &p) != nil || p.Operator != "prod-webhooks" || p.Learned.Objects != 4 {
			t.Fatalf("-o json: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		jdir := filepath.Join(dir, "json-profiles")
		_ = os.MkdirAll(jdir, 0o755)
		if err := os.WriteFile(filepath.Join(jdir, "prod-webhooks.yaml"), []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if l := runBinary(t, "", "profiles", "lint", jdir); l.code != 0 {
			t.Errorf("lint of the JSON profile: %s", l.stderr)
		}
	})

	// Saved into a profiles directory, selected next to the operator's
	// release, the profile fills the source offline.
	learned := filepath.Join(dir, "profiles")
	if r := runBinary(t, "", learnArgs(filepath.Join(dir, "w.json"), "--write", learned, objects)...); r.code != 0 {
		t.Fatalf("--write: exit %d: %s", r.code, r.stderr)
	}
	if r := runBinary(t, "", "profiles", "lint", learned); r.code != 0 {
		t.Fatalf("profiles lint: %s", r.stderr)
	}
	fillArgs := []string{"--operator", "gadgets@1.0.0", "--operator", "prod-webhooks@2026.12.1", "--profiles-dir", gadgets, "--profiles-dir", learned}

	t.Run("explain", func(t *testing.T) {
		r := runBinary(t, "", append(append([]string{"explain"}, fillArgs...), objects)...)
		if r.code != 0 || !strings.Contains(r.stdout, "#   learned from "+s.host+" (Kubernetes "+version.GitVersion+", context admin) from 4 object(s) and 2 varied beyond gadgets@1.0.0") || !strings.Contains(r.stdout, "mutation .spec.rules[].retries  from prod-webhooks@2026.12.1") {
			t.Errorf("explain: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("synced", func(t *testing.T) {
		results := a.run(t, scenario{id: "learned", crds: crds, objects: readObjects(t, objects), fillArgs: fillArgs})
		report(t, results)
		for _, r := range results {
			for _, m := range diffModes {
				if c := r.filled[m.name]; !c.synced() {
					t.Errorf("%s: with cmp-defaults, %s: %s", r.id, m.name, c)
				}
			}
			// Without the learned profile, the webhook's defaults in list
			// items are drift under ServerSideApply=true.
			if c := r.raw["structured-merge(ssa)"]; r.listItem == c.synced() {
				t.Errorf("%s: without cmp-defaults, structured-merge: %s (webhook default in a list item: %v)", r.id, c, r.listItem)
			}
			if len(r.vsRaw) > 0 {
				t.Errorf("%s: filled object differs from what the server stores for the object as written: %v", r.id, uniq(r.vsRaw))
			}
			if len(r.vsFilled) > 0 {
				t.Errorf("%s: filled object differs from what the server stores for it: %v", r.id, uniq(r.vsFilled))
			}
		}
	})

	t.Run("existing-objects", func(t *testing.T) {
		// Stored already: the first dry run merges with the stored object,
		// as Argo CD's sync would; what is learned stays the same.
		for _, o := range readObjects(t, objects) {
			a.sync(t, o, serverSideApply)
		}
		r := runBinary(t, "", learnArgs(filepath.Join(dir, "existing.json"), objects)...)
		if r.code != 0 || r.stdout != first.stdout {
			t.Errorf("learning from stored objects (exit %d):\n%s\n---\n%s\nstderr:\n%s", r.code, first.stdout, r.stdout, r.stderr)
		}
	})

	t.Run("rewrite-reported", func(t *testing.T) {
		src := "apiVersion: learn.e2e.cmp-defaults.io/v1\nkind: Gadget\nmetadata: {name: zero, namespace: learn}\nspec:\n  rules: [{name: a, protocol: TCP, timeoutSeconds: 0}]\n"
		rf := filepath.Join(dir, "rewrite.json")
		r := runBinary(t, src, learnArgs(rf, "-")...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		// Learned as data (a rewrite: fill warns), never as a mutation.
		rep := readLearnReport(t, rf)
		for _, m := range rep.Rules {
			if strings.Contains(m.Path, "timeoutSeconds") {
				t.Errorf("learned a mutation over a value the user wrote: %+v", m)
			}
		}
		if len(rep.Rewrites) != 1 || rep.Rewrites[0].Path != ".spec.rules[].timeoutSeconds" || fmt.Sprint(rep.Rewrites[0].From, " -> ", rep.Rewrites[0].To) != "0 -> 1" {
			t.Errorf("rewrite not reported: %+v\n%s", rep.Rewrites, r.stderr)
		}
		if !strings.Contains(r.stdout, "rewrites:\n      - path: .spec.rules[].timeoutSeconds\n        from: 0\n        to: 1\n") {
			t.Errorf("the profile does not record the rewrite:\n%s", r.stdout)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			stdin string
			args  []string
			want  []string
		}{
			{"forbidden", "", []string{"profiles", "learn", "--kubeconfig", s.kubeconfig, "--context", "viewer", "--as", "w@1.0.0", objects},
				[]string{"not allowed to", `User "e2e-viewer" cannot get resource "gadgets"`, "needs the verbs get, create and patch on gadgets.learn.e2e.cmp-defaults.io in namespace learn"}},
			{"unknown-kind", "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g, namespace: learn}\nspec: {}\n", []string{"profiles", "learn", "--kubeconfig", s.kubeconfig, "--as", "w@1.0.0", "-"},
				[]string{"the cluster does not serve example.com/v1 Gizmo: no CustomResourceDefinition for it is installed"}},
			{"unreachable", "", []string{"profiles", "learn", "--kubeconfig", unreachableKubeconfig(t), "--as", "w@1.0.0", objects},
				[]string{"cannot reach the API server at https://127.0.0.1:1"}},
			{"nothing-to-learn", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: learn}\n", []string{"profiles", "learn", "--kubeconfig", s.kubeconfig, "--as", "w@1.0.0", "-"},
				[]string{"no object to learn from"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := runBinary(t, c.stdin, c.args...)
				if r.code != 1 || r.stdout != "" {
					t.Fatalf("exit %d (want 1), stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				for _, want := range c.want {
					if !strings.Contains(r.stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
					}
				}
			})
		}
	})
	t.Logf("the webhook answered %d request(s), %d of them dry runs", w.requests.Load(), w.dryRuns.Load())
}
