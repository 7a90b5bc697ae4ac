package audit

import (
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// history names the checked releases in which a field was a default, with
// a minor series written M.m.x when the next checked release starts another.
func TestHistory(t *testing.T) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Resolve("external-secrets", "2.9.0", false)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDefaults([]*operators.Resolution{r})
	d.hist = NewHistory(st)
	p := []any{"spec", "data", 0, "remoteRef", "nullBytePolicy"}
	if got := d.history("external-secrets.io/v1", "ExternalSecret", p); got != "2.3.0–2.6.x" {
		t.Errorf("nullBytePolicy: %q", got)
	}
	if got := d.history("external-secrets.io/v1", "ExternalSecret", []any{"spec", "nothing"}); got != "" {
		t.Errorf("a field never defaulted: %q", got)
	}
}
