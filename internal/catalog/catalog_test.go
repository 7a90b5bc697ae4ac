package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

const acme = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: 1.0.0
resources:
  - group: %s
    version: v1
    kind: %s
    defaults:
      - path: .spec.replicas
        type: integer
        value: 3
`

// profileDir writes one acme profile for group and kind into a new directory.
func profileDir(t *testing.T, group, kind string) string {
	t.Helper()
	dir := t.TempDir()
	body := strings.NewReplacer("%s\n    version", group+"\n    version", "kind: %s", "kind: "+kind).Replace(acme)
	if err := os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func store(t *testing.T, dirs ...string) *operators.Store {
	t.Helper()
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS, Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestListNamesUserProfiles(t *testing.T) {
	dir := profileDir(t, "acme.io", "Thing")
	l, err := ListOf(store(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := l.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, ln := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(ln, "acme ") {
			line = ln
		}
	}
	if !strings.Contains(line, "v1.0.0 .. v1.0.0 (1)") || !strings.Contains(line, "(in force: v1.0.0 from user:"+dir+")") {
		t.Errorf("acme line %q: want its one release and its directory\n%s", line, text.String())
	}
	if !strings.Contains(text.String(), "cert-manager ") {
		t.Errorf("shipped cert-manager missing:\n%s", text.String())
	}
	if err := l.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var sums []operators.Summary
	if err := json.Unmarshal(js.Bytes(), &sums); err != nil || len(sums) != len(l.Operators) {
		t.Fatalf("JSON is not the array of summaries (%v):\n%s", err, js.String())
	}
}

func TestLintVerdicts(t *testing.T) {
	rep, err := Lint([]string{profileDir(t, "acme.io", "Thing")}, true)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil || !rep.OK() || !strings.HasSuffix(out.String(), "1 operator(s), 1 profile(s): ok\n") {
		t.Errorf("good dir: %v, %q", err, out.String())
	}

	// A rule for a built-in kind is a claim (a warning), a problem with strict.
	rep, err = Lint([]string{profileDir(t, "apps", "Deployment")}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Claims) == 0 || !rep.OK() {
		t.Fatalf("no claim for apps/v1 Deployment, or not ok: %+v", rep)
	}
	rep.Strict = true
	out.Reset()
	if rep.WriteText(&out); rep.OK() || !strings.Contains(out.String(), "because of --strict") || !strings.Contains(rep.Summary(), "--strict") {
		t.Errorf("strict: %q, %s", out.String(), rep.Summary())
	}

	rep, err = Lint([]string{t.TempDir()}, false)
	if err != nil || !rep.Empty() {
		t.Errorf("empty dir: %v, %+v", err, rep)
	}

	rep, err = Lint(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || rep.Profiles == 0 || rep.Where != "shipped profiles" {
		t.Errorf("shipped profiles: %+v", rep)
	}
}

// Every problem of a profile is reported with its file and line, not only
// the first, in text and in JSON.
func TestLintEveryProblem(t *testing.T) {
	dir := t.TempDir()
	bad := `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: 1.0.0
resources:
  - group: acme.io
    version: v1
    kind: Thing
    defaults:
      - path: .spec.replicas
        type: integer
        value: three
      - path: spec.x
        value: 1
    mutations:
      - path: .spec.[
        value: 1
  - group: acme.io
    version: v1
    kindd: Other
`
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"/p.yaml:10: rule .spec.replicas: value \"three\" is not of type integer\n",
		"/p.yaml:13: rule spec.x: path \"spec.x\" must start with '.'\n",
		"/p.yaml:16: rule .spec.[: ",
		"/p.yaml:20: unknown field \"kindd\"",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	if rep.OK() || !strings.HasSuffix(rep.Summary(), ": 4 problem(s)") {
		t.Errorf("summary %q", rep.Summary())
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		OK       bool
		Problems []Problem
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.OK || len(got.Problems) != 4 {
		t.Fatalf("JSON (%v):\n%s", err, js.String())
	}
	if p := got.Problems[0]; !strings.HasSuffix(p.File, "/p.yaml") || p.Line != 10 || p.Rule != ".spec.replicas" || p.Message != `value "three" is not of type integer` {
		t.Errorf("first problem %+v", p)
	}
}

func TestComplete(t *testing.T) {
	st := store(t)
	c, err := Complete(st, "external-secrets@2.5.0,cert-m", true)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Partial || c.Releases || !contains(c.Values, "external-secrets@2.5.0,cert-manager@") {
		t.Errorf("names: %+v", c)
	}
	c, err = Complete(st, "cert-manager@", true)
	if err != nil {
		t.Fatal(err)
	}
	rels, _ := st.Releases("cert-manager")
	if !c.Releases || len(c.Values) != len(rels) || c.Values[0] != "cert-manager@"+strings.TrimPrefix(rels[len(rels)-1].Version, "v") {
		t.Errorf("releases, newest first: %+v", c)
	}
	c, err = Complete(st, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Partial || !contains(c.Values, "cert-manager") {
		t.Errorf("bare names: %+v", c)
	}
	if _, err := Complete(st, "nope@", true); err == nil {
		t.Error("an unknown operator's releases: no error")
	}
}

func contains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

func TestVersionAndParameters(t *testing.T) {
	st := store(t)
	v, err := VersionOf(st, "v9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := v.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if !strings.HasPrefix(lines[0], "cmp-defaults v9.9.9 (go") || len(lines) != 1+len(st.Operators()) {
		t.Errorf("version text:\n%s", text.String())
	}
	p, err := ParametersOf(st)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), "cert-manager") {
		t.Errorf("parameters do not offer cert-manager:\n%s", js.String())
	}
}
