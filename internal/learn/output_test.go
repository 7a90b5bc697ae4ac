package learn

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

func TestWrite(t *testing.T) {
	res := Build(observe(gadgets(t)...))
	prov := operators.Learned{Cluster: "https://c", ServerVersion: "v1.34.2", Objects: 4}
	rep := &Report{Operator: "prod-webhooks", Version: "v2026.12.1", Learned: prov, Rules: res.Rules, NotLearned: res.Findings}
	p := Profile(rep.Operator, rep.Version, res, prov)

	// The profile on stdout, the report on stderr and as JSON in a file.
	dir := t.TempDir()
	var out, errw bytes.Buffer
	if err := write(&out, &errw, rep, p, Output{JSON: true, Report: filepath.Join(dir, "r.json")}); err != nil {
		t.Fatal(err)
	}
	if _, err := operators.ParseProfile("stdout", out.Bytes()); err != nil || !json.Valid(out.Bytes()) {
		t.Errorf("stdout is no JSON profile (%v):\n%s", err, out.String())
	}
	if !strings.Contains(errw.String(), "# prod-webhooks@2026.12.1 learned from https://c") {
		t.Errorf("stderr lacks the report:\n%s", errw.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	var back Report
	if err != nil || json.Unmarshal(b, &back) != nil || len(back.Rules) != len(rep.Rules) {
		t.Errorf("report file: %v\n%s", err, b)
	}

	// --write: nothing on stdout, the file where the profile is selected from.
	out.Reset()
	errw.Reset()
	if err := write(&out, &errw, rep, p, Output{Write: dir}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "prod-webhooks_*.yaml"))
	if out.Len() != 0 || len(files) != 1 || !strings.Contains(errw.String(), "wrote "+files[0]+": ") {
		t.Errorf("stdout %q, files %v, stderr:\n%s", out.String(), files, errw.String())
	}

	// Nothing learned, or nothing to learn from: an error, stdout empty.
	out.Reset()
	if err := write(&out, &errw, rep, nil, Output{}); err == nil || !strings.HasPrefix(err.Error(), "nothing learned") || out.Len() != 0 {
		t.Errorf("nil profile: %v, stdout %q", err, out.String())
	}
	none := *rep
	none.Learned.Objects = 0
	if err := write(&out, &errw, &none, p, Output{}); err == nil || !strings.HasPrefix(err.Error(), "no object to learn from") || out.Len() != 0 {
		t.Errorf("no objects: %v, stdout %q", err, out.String())
	}
}

func TestParseAs(t *testing.T) {
	name, version, err := ParseAs("prod-webhooks@2026.12.1")
	if err != nil || name != "prod-webhooks" || !strings.HasSuffix(version, "2026.12.1") {
		t.Errorf("ParseAs = %q, %q, %v", name, version, err)
	}
	for _, as := range []string{"", "prod-webhooks", "Bad_Name@1.0.0"} {
		if _, _, err := ParseAs(as); err == nil {
			t.Errorf("ParseAs(%q): no error", as)
		}
	}
}

// write is Write with its results written as cmd/ presents them.
func write(out, errw *bytes.Buffer, rep *Report, p *operators.Profile, o Output) error {
	w, err := Write(rep, p, o)
	errw.WriteString(w.Notes)
	if err == nil {
		out.Write(w.Profile)
	}
	return err
}
