package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

func TestSameOperator(t *testing.T) {
	if err := SameOperator("demo@1.0.0", "demo@1.1.0"); err != nil {
		t.Error(err)
	}
	if err := SameOperator("demo@1.0.0", "other@1.1.0"); err == nil || !strings.Contains(err.Error(), "got demo and other") {
		t.Errorf("two operators: %v", err)
	}
	if err := SameOperator("demo", "demo@1.1.0"); err == nil {
		t.Error("no version: no error")
	}
}

// TestFill: each release fills its own copy of the objects; the report
// names what changes between them and leaves the input as release A fills it.
func TestFill(t *testing.T) {
	rule := func(v string) string {
		return "  - group: demo.io\n    version: v1\n    kind: Widget\n    defaults:\n      - {path: \".spec.mode\", type: string, value: " + v + "}\n"
	}
	a, b := profile(t, "v1.0.0", rule("fast")), profile(t, "v2.0.0", rule("safe"))
	engine := func(r *operators.Resolution) *defaults.Engine {
		e, err := defaults.Compile([]*operators.Resolution{r}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	objs, err := manifest.Decode("w.yaml", []byte("apiVersion: demo.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n---\napiVersion: demo.io/v1\nkind: Widget\nmetadata: {name: set}\nspec: {mode: mine}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Fill(engine(a), engine(b), a, b, objs)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Changed() || rep.Total != 2 || len(rep.Objects) != 1 || rep.Objects[0].Changes[0].Path != ".spec.mode" {
		t.Fatalf("report %+v", rep)
	}
	if got := objs[0].Data["spec"].(map[string]any)["mode"]; got != "fast" {
		t.Errorf("input filled with %v, want release A's value", got)
	}
	var text, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), ".spec.mode") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"total": 2`) {
		t.Errorf("JSON: %v\n%s", err, js.String())
	}
	if d := Profiles(a, a); d.Changed() {
		t.Errorf("a release against itself changed: %+v", d)
	}
}
