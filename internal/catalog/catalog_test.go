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
	rep, err := Lint([]string{profileDir(t, "acme.io", "Thing")})
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := lintWrite(rep, &out, &errw, true); err != nil || !strings.HasSuffix(out.String(), "1 operator(s), 1 profile(s): ok\n") {
		t.Errorf("good dir: %v, %q", err, out.String())
	}

	// A rule for a built-in kind warns, and fails with strict.
	rep, err = Lint([]string{profileDir(t, "apps", "Deployment")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Claims) == 0 {
		t.Fatalf("no claim for apps/v1 Deployment: %+v", rep)
	}
	out.Reset()
	errw.Reset()
	if err := lintWrite(rep, &out, &errw, false); err != nil || !strings.HasPrefix(errw.String(), "Warning: ") {
		t.Errorf("not strict: %v, stderr %q", err, errw.String())
	}
	if err := lintWrite(rep, &out, &errw, true); err == nil || !strings.Contains(err.Error(), "--strict") {
		t.Errorf("strict: %v", err)
	}

	rep, err = Lint([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := lintWrite(rep, &out, &errw, false); err == nil || !strings.Contains(err.Error(), "no profiles found") {
		t.Errorf("empty dir: %v", err)
	}

	rep, err = Lint(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || rep.Profiles == 0 || rep.Where != "shipped profiles" {
		t.Errorf("shipped profiles: %+v", rep)
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

// lintWrite presents a lint report as 'profiles lint' does.
func lintWrite(rep *LintReport, out, errw *bytes.Buffer, strict bool) error {
	if err := rep.Check(strict); err != nil {
		return err
	}
	for _, c := range rep.Claims {
		errw.WriteString("Warning: " + c + "\n")
	}
	return rep.WriteText(out)
}
