package report

import (
	"bytes"
	"io"
	"testing"
)

type fake struct{}

func (fake) WriteText(w io.Writer) error { _, err := io.WriteString(w, "a table\n"); return err }
func (fake) WriteJSON(w io.Writer) error {
	return WriteJSON(w, map[string]any{"zeta": "true", "alpha": []any{1, "x", map[string]any{"k": nil}}, "empty": []any{}})
}

func TestWriteFormats(t *testing.T) {
	for format, want := range map[string]string{
		"text": "a table\n",
		"":     "a table\n",
		"json": "{\n  \"alpha\": [\n    1,\n    \"x\",\n    {\n      \"k\": null\n    }\n  ],\n  \"empty\": [],\n  \"zeta\": \"true\"\n}\n",
		"yaml": "alpha:\n  - 1\n  - x\n  - k: null\nempty: []\nzeta: \"true\"\n",
	} {
		var b bytes.Buffer
		if err := Write(&b, fake{}, format); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("format %q:\n%s\nwant:\n%s", format, b.String(), want)
		}
	}
}

func TestCheckFormat(t *testing.T) {
	if err := CheckFormat("text", ReportFormats); err != nil {
		t.Error(err)
	}
	err := CheckFormat("text", ManifestFormats)
	if err == nil || err.Error() != `--output "text": use yaml or json` {
		t.Errorf("got %v", err)
	}
}
