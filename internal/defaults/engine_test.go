package defaults

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

const userProfile = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: v1.0.0
resources:
  - group: acme.io
    version: v1
    kind: Thing
    defaults:
      - path: .spec.mode
        type: string
        value: Fast
      - path: .spec.items[].policy
        type: string
        value: Keep
      - path: .spec.opts
        type: object
        value: {}
      - path: .spec.opts.retries
        type: integer
        value: 3
    mutations:
      - path: .metadata.annotations["acme.io/injected"]
        value: "true"
        when: .spec.mode == "Fast"
        reason: the acme webhook marks fast things
      - path: .spec.items[] | select(.name == "db") | .tier
        value: gold
`

func compileText(t *testing.T, text string) *Engine {
	t.Helper()
	p, err := operators.ParseProfile("acme.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile([]*operators.Resolution{{Operator: "acme", Requested: "v1.0.0", Profile: p}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func decodeOne(t *testing.T, y string) map[string]any {
	t.Helper()
	objs, err := manifest.Decode("test.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return objs[0].Data
}

func TestFillDefaultsMutationsAndProvenance(t *testing.T) {
	e := compileText(t, userProfile)
	obj := decodeOne(t, `
apiVersion: acme.io/v1
kind: Thing
metadata: {name: t, annotations: {}}
spec:
  items: [{name: db}, {name: web, policy: Drop}, {name: x, tier: silver}]
`)
	var got []string
	if err := e.Fill(obj, func(f Filled) { got = append(got, f.Type+" "+f.Path+" <- "+f.Rule) }); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"default .spec.mode <- .spec.mode",
		"default .spec.opts <- .spec.opts",
		"default .spec.items[0].policy <- .spec.items[].policy",
		"default .spec.items[2].policy <- .spec.items[].policy",
		"default .spec.opts.retries <- .spec.opts.retries",
		`mutation .metadata.annotations["acme.io/injected"] <- .metadata.annotations["acme.io/injected"]`,
		`mutation .spec.items[0].tier <- .spec.items[] | select(.name == "db") | .tier`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("filled:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	items := obj["spec"].(map[string]any)["items"].([]any)
	if items[1].(map[string]any)["policy"] != "Drop" || items[2].(map[string]any)["tier"] != "silver" {
		t.Fatalf("user values changed: %v", items)
	}
	// Idempotent.
	n := 0
	if err := e.Fill(obj, func(Filled) { n++ }); err != nil || n != 0 {
		t.Fatalf("second fill set %d fields, err %v", n, err)
	}
}

func TestMutationNeverInventsParents(t *testing.T) {
	e := compileText(t, userProfile)
	obj := decodeOne(t, "apiVersion: acme.io/v1\nkind: Thing\nmetadata: {name: t}\nspec: {mode: Slow}\n")
	if err := e.Fill(obj, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := obj["metadata"].(map[string]any)["annotations"]; ok {
		t.Fatal("annotations map was invented")
	}
	if _, ok := obj["spec"].(map[string]any)["items"]; ok {
		t.Fatal("items list was invented")
	}
}

func TestWrongTypeAtDefaultPath(t *testing.T) {
	e := compileText(t, userProfile)
	for _, tc := range []struct{ y, path, want string }{
		{"spec: {items: notalist}", ".spec.items", "a list"},
		{"spec: {opts: [1]}", ".spec.opts", "an object"},
		{"spec: {mode: 5}", ".spec.mode", "of type string"},
		{"spec: {items: [{policy: {a: 1}}]}", ".spec.items[0].policy", "of type string"},
		{"spec: wrong", ".spec", "an object"},
	} {
		obj := decodeOne(t, "apiVersion: acme.io/v1\nkind: Thing\nmetadata: {name: t}\n"+tc.y+"\n")
		err := e.Fill(obj, nil)
		var te *TypeError
		if !errors.As(err, &te) || te.Path != tc.path || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a type error at %s saying %s", tc.y, err, tc.path, tc.want)
		}
	}
}

func TestOtherKindsPassThrough(t *testing.T) {
	e := compileText(t, userProfile)
	for _, y := range []string{
		"apiVersion: acme.io/v2\nkind: Thing\nmetadata: {name: t}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\n",
	} {
		obj := decodeOne(t, y)
		n := 0
		if err := e.Fill(obj, func(Filled) { n++ }); err != nil || n != 0 || obj["spec"] != nil {
			t.Errorf("%q: changed (n=%d, err=%v)", y, n, err)
		}
	}
}

func TestCompileRejectsTwoOwnersOfAKind(t *testing.T) {
	p, err := operators.ParseProfile("a.yaml", []byte(userProfile))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile([]*operators.Resolution{
		{Operator: "acme", Requested: "v1.0.0", Profile: p},
		{Operator: "acme-fork", Requested: "v1.0.0", Profile: p},
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "acme.io/v1 Thing") {
		t.Fatalf("want a conflict error naming the kind, got %v", err)
	}
}

// jq rules run under the caller's context: a rule that would loop for
// ever ends with the deadline.
func TestMutationsHonourTheContext(t *testing.T) {
	p, err := operators.ParseProfile("p.yaml", []byte(strings.Replace(userProfile, `when: .spec.mode == "Fast"`, `when: 'last(limit(1e9; repeat(.)))'`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile([]*operators.Resolution{{Operator: "acme", Requested: "v1.0.0", Profile: p}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	obj := map[string]any{"apiVersion": "acme.io/v1", "kind": "Thing", "metadata": map[string]any{}, "spec": map[string]any{}}
	start := time.Now()
	err = e.WithContext(ctx).Fill(obj, nil)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("got %v, want the deadline", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

// TestMutationConditionsSeeTheObjectAsSent: a webhook decides on the
// object it receives; one rule's fill never turns off another's condition
// (CloudNativePG fills the database, and the owner only where the database
// was absent).
func TestMutationConditionsSeeTheObjectAsSent(t *testing.T) {
	e := compileText(t, `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: pg
version: v1.0.0
resources:
  - group: pg.io
    version: v1
    kind: Cluster
    mutations:
      - {path: .spec.db.name, value: app}
      - {path: .spec.db.owner, value: app, when: .spec.db.name == null}
`)
	obj := decodeOne(t, "apiVersion: pg.io/v1\nkind: Cluster\nmetadata: {name: c}\nspec: {db: {size: 1}}\n")
	if err := e.Fill(obj, nil); err != nil {
		t.Fatal(err)
	}
	db := obj["spec"].(map[string]any)["db"].(map[string]any)
	if db["name"] != "app" || db["owner"] != "app" {
		t.Errorf("filled %v, want name and owner app", db)
	}
}
