package preview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
)

func cluster(name string, extra map[string]any) map[string]any {
	spec := map[string]any{"instances": 3}
	for k, v := range extra {
		spec[k] = v
	}
	return map[string]any{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": name, "namespace": "db"}, "spec": spec}
}

// An Application without the plugin drifts at what admission fills, but for
// the fields its ignoreDifferences covers; with the plugin, or as a hook,
// it does not.
func TestPredict(t *testing.T) {
	filled := []defaults.Filled{{Path: ".spec.logLevel", Value: "info", Rule: ".spec.logLevel", Type: "default"},
		{Path: ".spec.startDelay", Value: 3600, Rule: ".spec.startDelay", Type: "default"}}
	rule := &argocd.Rule{Group: "postgresql.cnpg.io", Kind: "Cluster", JQPathExpressions: []string{".spec.startDelay"}}
	hook := cluster("hook", nil)
	hook["metadata"].(map[string]any)["annotations"] = map[string]any{"argocd.argoproj.io/hook": "PreSync"}
	for _, tc := range []struct {
		name  string
		side  Side
		sync  Sync
		drift []string
	}{
		{"not filled", Side{Objects: []Object{{Data: cluster("pg", nil), Filled: filled}}}, OutOfSync, []string{".spec.logLevel", ".spec.startDelay"}},
		{"one ignored", Side{Objects: []Object{{Data: cluster("pg", nil), Filled: filled}}, Rules: []*argocd.Rule{rule}}, OutOfSync, []string{".spec.logLevel"}},
		{"filled by the plugin", Side{Objects: []Object{{Data: cluster("pg", nil), Filled: filled, InGit: true}}}, Synced, nil},
		{"a hook", Side{Objects: []Object{{Data: hook, Filled: filled}}}, Synced, nil},
		{"unknown", Side{Objects: []Object{{Data: cluster("pg", nil), Unknown: "not learned"}}}, Unknown, nil},
		{"not rendered", Side{Unrendered: []string{"spec.source: a remote chart"}}, Unknown, nil},
	} {
		sync, drift, _ := predict(&tc.side)
		var got []string
		for _, d := range drift {
			got = append(got, d.Path)
		}
		if sync != tc.sync || strings.Join(got, " ") != strings.Join(tc.drift, " ") {
			t.Errorf("%s: got %s %v, want %s %v", tc.name, sync, got, tc.sync, tc.drift)
		}
	}
}

// A changed field under an ignored path is hidden; a change to an immutable
// field is named; a Secret's values never reach the diff.
func TestCompareObjects(t *testing.T) {
	base := []Object{{Data: cluster("pg", map[string]any{"description": "a"}), Namespace: "db"},
		{Data: map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "s"},
			"spec": map[string]any{"serviceName": "a", "replicas": 1}}, Namespace: "db"},
		{Data: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "x"}, "stringData": map[string]any{"k": "old-value"}}, Namespace: "db"}}
	head := []Object{{Data: cluster("pg", map[string]any{"description": "b"}), Namespace: "db"},
		{Data: map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "s"},
			"spec": map[string]any{"serviceName": "b", "replicas": 2}}, Namespace: "db"},
		{Data: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "x"}, "stringData": map[string]any{"k": "new-value"}}, Namespace: "db"}}
	rules := []*argocd.Rule{{Group: "postgresql.cnpg.io", Kind: "Cluster", JSONPointers: []string{"/spec/description"}}}
	res := compareObjects(base, head, rules, false)
	if len(res) != 3 {
		t.Fatalf("got %d resources, want 3", len(res))
	}
	for _, r := range res {
		switch r.Kind {
		case "Cluster":
			if len(r.Hidden) != 1 || r.Hidden[0].Path != ".spec.description" {
				t.Errorf("Cluster: hidden %+v", r.Hidden)
			}
		case "StatefulSet":
			if strings.Join(r.Immutable, " ") != ".spec.serviceName" || len(r.Hidden) != 0 {
				t.Errorf("StatefulSet: immutable %v, hidden %v", r.Immutable, r.Hidden)
			}
		case "Secret":
			if !r.Redacted || r.Diff != "" {
				t.Errorf("Secret: redacted %v, diff %q", r.Redacted, r.Diff)
			}
		}
	}
}

// The Markdown report comes in parts under the budget, numbered, that
// together hold every resource; a diff past the budget is cut, saying so.
func TestMarkdownParts(t *testing.T) {
	rep := &Report{APIVersion: APIVersion, Base: Revision{Ref: "main"}, Head: Revision{Ref: "pr"}, MaxCommentBytes: 4000}
	for i := range 6 {
		a := &App{Kind: "Application", Name: fmt.Sprintf("app%d", i), Namespace: "argocd", File: "apps.yaml", Change: Modified, PredictedSync: Synced}
		for j := range 3 {
			a.Resources = append(a.Resources, &Resource{Kind: "ConfigMap", Name: fmt.Sprintf("cm%d-%d", i, j), Change: Modified,
				Diff: strings.Repeat(fmt.Sprintf("-a: %d\n+a: %d\n", i, j), 60*(i+1))})
		}
		rep.Apps = append(rep.Apps, a)
	}
	rep.count()
	parts := rep.Markdown()
	if len(parts) < 2 {
		t.Fatalf("one part of %d bytes, want several under 4000", len(parts[0]))
	}
	all := strings.Join(parts, "")
	for i, p := range parts {
		if len(p) > 4000 {
			t.Errorf("part %d: %d bytes, over the budget", i+1, len(p))
		}
		if !strings.HasPrefix(p, fmt.Sprintf("<!-- cmp-defaults preview: part %d of %d -->", i+1, len(parts))) {
			t.Errorf("part %d starts %q", i+1, p[:60])
		}
	}
	for _, a := range rep.Apps {
		for _, r := range a.Resources {
			if !strings.Contains(all, "`ConfigMap "+r.Name+"`") {
				t.Errorf("%s is in no part", r.Name)
			}
		}
	}
	if !strings.Contains(all, "do not fit the comment; the JSON report holds all of it") {
		t.Error("the longest diffs are not cut, or cut silently")
	}
}
