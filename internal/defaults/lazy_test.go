package defaults

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// A kind's tree is built on its first fill: objects filled at once on
// several goroutines, as the first of a run, come out as one filled alone
// (run with -race to check the build is safe).
func TestFirstFillsAtOnce(t *testing.T) {
	const y = "apiVersion: acme.io/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  items: [{name: db}, {name: web, policy: Drop}]\n"
	want := decodeOne(t, y)
	if err := compileText(t, userProfile).Fill(want, nil); err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(want)
	e := compileText(t, userProfile)
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	errs := make([]error, len(got))
	for i := range got {
		obj := decodeOne(t, y)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.Fill(obj, nil)
			got[i], _ = json.Marshal(obj)
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || string(got[i]) != string(wantJSON) {
			t.Errorf("goroutine %d: %s (%v), want %s", i, got[i], errs[i], wantJSON)
		}
	}
}

// Compile checks every default path at once, though the tree of a kind
// is built later: a profile made in code with a bad path fails to compile.
func TestCompileChecksPathsOfUnbuiltKinds(t *testing.T) {
	p := &operators.Profile{Operator: "acme", Version: "v1.0.0", File: "acme.yaml", Resources: []operators.Resource{{
		Group: "acme.io", Version: "v1", Kind: "Thing",
		Defaults: []operators.Default{{Path: ".spec.items[]", Value: "x"}},
	}}}
	_, err := Compile([]*operators.Resolution{{Operator: "acme", Requested: "v1.0.0", Profile: p}}, nil)
	if err == nil || !strings.Contains(err.Error(), `acme.yaml: path ".spec.items[]" must end in a field name`) {
		t.Fatalf("want the bad path named, got %v", err)
	}
}
