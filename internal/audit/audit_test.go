package audit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

const demoProfile = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: demo
version: v1.0.0
resources:
  - group: demo.io
    version: v1
    kind: Widget
    maps: [.spec.pools]
    defaults:
      - {path: ".spec.mode", type: string, value: auto}
      - {path: ".spec.items[].policy", type: string, value: Keep}
      - {path: ".spec.pools[].size", type: integer, value: 1}
      - {path: ".spec.target.deletion", type: string, value: Retain}
      - {path: ".spec.target.options", type: object, value: {a: x, b: y}}
    mutations:
      - path: .spec.items[] | select(.kind == "heavy") | .weight
        value: 5
`

const demoObjects = `apiVersion: demo.io/v1
kind: Widget
metadata: {name: w1, namespace: ns}
spec:
  replicas: 2
  items:
    - {name: a, kind: heavy}
    - {name: b, policy: Drop}
  pools:
    east: {zone: e}
  target: {name: t}
---
apiVersion: demo.io/v1
kind: Widget
metadata: {name: w2}
spec:
  mode: manual
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
spec:
  replicas: 3
  template: {spec: {containers: [{name: web, image: nginx}]}}
`

func setup(t *testing.T) ([]*Target, []*operators.Resolution) {
	t.Helper()
	p, err := operators.ParseProfile("demo.yaml", []byte(demoProfile))
	if err != nil {
		t.Fatal(err)
	}
	res := []*operators.Resolution{{Operator: "demo", Requested: "v1.0.0", Profile: p}}
	e, err := defaults.Compile(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Decode("objs.yaml", []byte(demoObjects))
	if err != nil {
		t.Fatal(err)
	}
	var targets []*Target
	for _, o := range objs {
		tg := &Target{Object: o}
		if err := e.Fill(o.Data, func(f defaults.Filled) { tg.Filled = append(tg.Filled, f) }); err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
	}
	return targets, res
}

func check(t *testing.T, rule *argocd.Rule) *RuleReport {
	t.Helper()
	targets, res := setup(t)
	if rule.Origin.Kind == "" {
		rule.Origin = argocd.Origin{Kind: "Application", Name: "app", File: "app.yaml", Field: "spec.ignoreDifferences[0]"}
	}
	rep := Classify([]*argocd.Rule{rule}, targets, res, nil)
	if len(rep.Rules) != 1 {
		t.Fatalf("want one rule report, got %d", len(rep.Rules))
	}
	var buf bytes.Buffer
	rep.WriteText(&buf) // must not panic on any report
	return rep.Rules[0]
}

func paths(fs []Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

func TestClassify(t *testing.T) {
	widget := func(jq []string, ptr []string) *argocd.Rule {
		return &argocd.Rule{Group: "demo.io", Kind: "Widget", JQPathExpressions: jq, JSONPointers: ptr}
	}
	tests := []struct {
		name          string
		rule          *argocd.Rule
		status        Status
		filled        []string
		remaining     []string
		reasonContain string
		keep          []string
		keepErr       string
	}{
		{
			name:   "list item default, one item sets it in Git",
			rule:   widget([]string{".spec.items[].policy"}, nil),
			status: Redundant,
			// items[1].policy is written in Git ("Drop"): not filled, but
			// Git explains it, so the rule only hides drift.
			remaining:     []string{".spec.items[1].policy"},
			reasonContain: "either filled by cmp-defaults (1) or set in Git (1)",
		},
		{
			name:   "select narrows to the filled item",
			rule:   widget([]string{`.spec.items[] | select(.name == "a") | .policy`}, nil),
			status: Redundant,
			filled: []string{".spec.items[0].policy"},
		},
		{
			name:   "mutation-filled field",
			rule:   widget([]string{".spec.items[].weight"}, nil),
			status: Redundant,
			// items[1] is not "heavy": the webhook adds nothing there, on
			// either side.
			filled: []string{".spec.items[0].weight", ".spec.items[1].weight"},
		},
		{
			name:   "map values default",
			rule:   widget([]string{".spec.pools[].size"}, nil),
			status: Redundant,
			filled: []string{".spec.pools.east.size"},
		},
		{
			name:   "object default expands to its leaves",
			rule:   widget([]string{".spec.target.options"}, nil),
			status: Redundant,
			// w2 has no target: nothing to fill there, nothing added live.
			filled: []string{".spec.target.options.a", ".spec.target.options.b", ".spec.target.options"},
		},
		{
			name:   "subtree with Git fields is partly redundant",
			rule:   widget([]string{".spec.target"}, nil),
			status: PartlyRedundant,
			// w1's target.name is Git's; w2 has no target at all (live only).
			remaining:     []string{".spec.target.name", ".spec.target"},
			reasonContain: "fills 3 of the fields it ignores, 1 are set in Git; the other 1 are neither",
			keep:          []string{".spec.target"},
		},
		{
			name:   "field written in Git",
			rule:   widget([]string{".spec.replicas"}, nil),
			status: StillNeeded,
			// w1 sets it in Git, w2 leaves it to the cluster: still needed.
			remaining:     []string{".spec.replicas", ".spec.replicas"},
			reasonContain: "not an admission default",
		},
		{
			name:          "json pointer to a live-only field",
			rule:          widget(nil, []string{"/metadata/annotations/owner"}),
			status:        StillNeeded,
			remaining:     []string{".metadata.annotations.owner", ".metadata.annotations.owner"},
			reasonContain: "likely written by a controller",
		},
		{
			name:   "json pointer into a list and a map default",
			rule:   widget(nil, []string{"/spec/items/0/policy"}),
			status: Redundant,
			filled: []string{".spec.items[0].policy", ".spec.items[0].policy"},
		},
		{
			name:   "default whose parent is absent",
			rule:   widget(nil, []string{"/spec/target/deletion"}),
			status: Redundant,
			// w2 has no target: the default would not be added there either.
			filled: []string{".spec.target.deletion", ".spec.target.deletion"},
		},
		{
			name:          "select that matches nothing",
			rule:          widget([]string{`.spec.items[] | select(.name == "zzz") | .policy`}, nil),
			status:        StillNeeded,
			reasonContain: "selects nothing",
		},
		{
			name:          "default pattern that selects nothing is redundant",
			rule:          &argocd.Rule{Group: "demo.io", Kind: "Widget", Name: "w2", JQPathExpressions: []string{".spec.items[].policy"}},
			status:        Redundant,
			filled:        []string{".spec.items[].policy"},
			reasonContain: "selects nothing in these manifests",
		},
		{
			name:          "wrong group",
			rule:          &argocd.Rule{Group: "demo.example.io", Kind: "Widget", JQPathExpressions: []string{".spec.mode"}},
			status:        MatchesNothing,
			reasonContain: `objects of that kind have group "demo.io", kind Widget`,
		},
		{
			name:          "wrong name",
			rule:          &argocd.Rule{Group: "demo.io", Kind: "Widget", Name: "w9", JQPathExpressions: []string{".spec.mode"}},
			status:        MatchesNothing,
			reasonContain: "Widget objects here are ns/w1, w2",
		},
		{
			name:          "invalid jq",
			rule:          widget([]string{".spec.items[] | "}, nil),
			status:        Invalid,
			reasonContain: "not a valid jq path expression",
		},
		{
			name:          "invalid pointer",
			rule:          widget(nil, []string{"spec/mode"}),
			status:        Invalid,
			reasonContain: "write it as /spec/mode",
		},
		{
			name:          "managed fields",
			rule:          &argocd.Rule{Group: "demo.io", Kind: "Widget", ManagedFieldsManagers: []string{"kube-controller-manager"}},
			status:        StillNeeded,
			reasonContain: "managedFieldsManagers",
		},
		{
			name:          "field of a covered kind set in Git",
			rule:          &argocd.Rule{Group: "demo.io", Kind: "Widget", Name: "w1", JSONPointers: []string{"/spec/replicas"}},
			status:        Redundant,
			remaining:     []string{".spec.replicas"},
			reasonContain: "leave the field out of Git",
		},
		{
			// The classic HPA rule: no selected profile covers Deployments,
			// so it is none of cmp-defaults' business (and no exit 3).
			name:          "replicas of a Deployment",
			rule:          &argocd.Rule{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/replicas"}},
			status:        OutOfScope,
			reasonContain: "no selected operator profile covers apps/Deployment; this rule is not about admission defaults",
		},
		{
			name:          "managed fields of a Deployment",
			rule:          &argocd.Rule{Group: "apps", Kind: "Deployment", ManagedFieldsManagers: []string{"kube-controller-manager"}},
			status:        OutOfScope,
			reasonContain: "not about admission defaults",
		},
		{
			name:          "invalid expression on a kind no profile covers",
			rule:          &argocd.Rule{Group: "apps", Kind: "Deployment", JQPathExpressions: []string{".spec.replicas["}},
			status:        Invalid,
			reasonContain: "not a valid jq path expression",
		},
		{
			// A glob over covered and other kinds is judged on the covered
			// objects: the Deployment's replicas set in Git do not count.
			name:      "glob over covered and other kinds",
			rule:      &argocd.Rule{Group: "*", Kind: "*", Namespace: "ns", JQPathExpressions: []string{".spec.replicas"}},
			status:    Redundant,
			remaining: []string{".spec.replicas"},
		},
		{
			name:          "json pointer with a missing parent",
			rule:          widget(nil, []string{"/spec/extra/owner"}),
			status:        StillNeeded,
			reasonContain: "Argo CD's patch fails",
			keepErr:       "the parent /spec/extra is missing",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rr := check(t, tc.rule)
			if len(rr.Checks) != 1 {
				t.Fatalf("want 1 check, got %d", len(rr.Checks))
			}
			c := rr.Checks[0]
			if c.Status != tc.status {
				t.Fatalf("status %s, want %s (reason: %s; filled %v; remaining %v; errors %v)", c.Status, tc.status, c.Reason, paths(c.Filled), paths(c.Remaining), c.Errors)
			}
			if tc.reasonContain != "" && !strings.Contains(c.Reason, tc.reasonContain) {
				t.Errorf("reason %q does not contain %q", c.Reason, tc.reasonContain)
			}
			if tc.filled != nil && strings.Join(paths(c.Filled), ",") != strings.Join(tc.filled, ",") {
				t.Errorf("filled %v, want %v", paths(c.Filled), tc.filled)
			}
			if strings.Join(c.Keep, ",") != strings.Join(tc.keep, ",") {
				t.Errorf("keep %v, want %v", c.Keep, tc.keep)
			}
			if tc.keepErr != "" && !strings.Contains(strings.Join(c.Errors, "\n"), tc.keepErr) {
				t.Errorf("errors %v do not contain %q", c.Errors, tc.keepErr)
			}
			if tc.remaining != nil && strings.Join(paths(c.Remaining), ",") != strings.Join(tc.remaining, ",") {
				t.Errorf("remaining %v, want %v", paths(c.Remaining), tc.remaining)
			}
		})
	}
}

func TestJQErrorRemovesNothing(t *testing.T) {
	// Argo CD's patch fails on an object where .spec.items is missing
	// (cannot iterate over null) and leaves it alone; w1 still counts.
	rr := check(t, &argocd.Rule{Group: "demo.io", Kind: "Widget", JQPathExpressions: []string{".spec.items[].policy"}})
	c := rr.Checks[0]
	if len(c.Errors) != 1 || !strings.Contains(c.Errors[0], "w2") || !strings.Contains(c.Errors[0], "cannot iterate over: null") {
		t.Errorf("errors %v", c.Errors)
	}
}

func TestDefaultsMatch(t *testing.T) {
	_, res := setup(t)
	d := NewDefaults(res)
	tests := []struct {
		path []any
		want bool
	}{
		{[]any{"spec", "items", 3, "policy"}, true},
		{[]any{"spec", "items", "3", "policy"}, true}, // JSON pointer token
		{[]any{"spec", "items", "x", "policy"}, false},
		{[]any{"spec", "pools", "west", "size"}, true},
		{[]any{"spec", "pools", 0, "size"}, true}, // a map key "0" through a JSON pointer
		{[]any{"spec", "mode", 0}, false},
		{[]any{"spec", "mode"}, true},
		{[]any{"spec", "replicas"}, false},
	}
	for _, tc := range tests {
		_, _, ok := d.Match("demo.io/v1", "Widget", tc.path)
		if ok != tc.want {
			t.Errorf("%v: got %v, want %v", tc.path, ok, tc.want)
		}
	}
	if _, _, ok := d.Match("demo.io/v2", "Widget", []any{"spec", "mode"}); ok {
		t.Error("another version must not match")
	}
}

func TestSkeleton(t *testing.T) {
	tests := map[string]string{
		`.spec.items[] | select(.kind == "heavy") | .weight`: ".spec.items[].weight",
		`.spec.data[].remoteRef.nullBytePolicy`:              ".spec.data[].remoteRef.nullBytePolicy",
		`.a[] | select(.x) | .b[] | select(.y | not) | .c`:   ".a[].b[].c",
		`.a, .b`:     "",
		`select(.x)`: "",
	}
	for in, want := range tests {
		got, ok := skeleton(in)
		if want == "" {
			if ok {
				t.Errorf("%s: got %q, want none", in, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// TestWebhookVerdicts: a kind the operator's mutating webhook matches. A
// rule on a field only CRD schema defaults fill is still needed (the
// webhook may add more there); once a mutation rule fills it, redundant.
func TestWebhookVerdicts(t *testing.T) {
	const crdOnly = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: pg
version: v1.0.0
resources:
  - group: pg.io
    version: v1
    kind: Cluster
    webhook: mcluster.pg.io
    defaults:
      - {path: ".spec.slots", type: object, value: {ha: {enabled: true}}}
`
	const withMutation = crdOnly + `    mutations:
      - {path: .spec.slots.sync, value: {enabled: true}}
`
	audit := func(profile string) *Check {
		p, err := operators.ParseProfile("pg.yaml", []byte(profile))
		if err != nil {
			t.Fatal(err)
		}
		res := []*operators.Resolution{{Operator: "pg", Requested: "v1.0.0", Profile: p}}
		e, err := defaults.Compile(res, nil)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifest.Decode("c.yaml", []byte("apiVersion: pg.io/v1\nkind: Cluster\nmetadata: {name: c, namespace: db}\nspec: {instances: 1}\n"))
		if err != nil {
			t.Fatal(err)
		}
		tg := &Target{Object: objs[0]}
		if err := e.Fill(objs[0].Data, func(f defaults.Filled) { tg.Filled = append(tg.Filled, f) }); err != nil {
			t.Fatal(err)
		}
		rule := &argocd.Rule{Group: "pg.io", Kind: "Cluster", JQPathExpressions: []string{".spec.slots"}, Origin: argocd.Origin{Kind: "Application", Name: "app", File: "app.yaml"}}
		rep := Classify([]*argocd.Rule{rule}, []*Target{tg}, res, nil)
		return rep.Rules[0].Checks[0]
	}
	c := audit(crdOnly)
	if c.Status != StillNeeded || !strings.Contains(c.Reason, "mutating webhook mcluster.pg.io (pg@1.0.0") {
		t.Errorf("CRD defaults only: %s: %s", c.Status, c.Reason)
	}
	c = audit(withMutation)
	if c.Status != Redundant {
		t.Errorf("with a mutation rule: %s: %s %+v", c.Status, c.Reason, c.Filled)
	}
}

// Out of scope never makes a finding: the summary counts it apart from
// redundant rules, and the text says OUT OF SCOPE.
func TestOutOfScopeSummary(t *testing.T) {
	targets, res := setup(t)
	rule := &argocd.Rule{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/replicas"},
		Origin: argocd.Origin{Kind: "Application", Name: "web", File: "app.yaml", Field: "spec.ignoreDifferences[0]"}}
	rep := Classify([]*argocd.Rule{rule}, targets, res, nil)
	if rep.Summary.Redundant != 0 || rep.Summary.OutOfScope != 1 {
		t.Fatalf("summary %+v, want 1 out of scope and none redundant", rep.Summary)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "OUT OF SCOPE: no selected operator profile covers apps/Deployment") || !strings.Contains(buf.String(), "0 redundant") {
		t.Errorf("text:\n%s", buf.String())
	}
}
