package profiles_test

import (
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// TestEveryCheckedReleaseResolves: every release an index lists resolves,
// strictly, to a profile of the same operator that loads, and every
// generated profile records where it was read from.
func TestEveryCheckedReleaseResolves(t *testing.T) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, op := range st.Operators() {
		rels, err := st.Releases(op)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rels {
			res, err := st.Resolve(op, r.Version, true)
			if err != nil {
				t.Errorf("%s@%s: %v", op, r.Version, err)
				continue
			}
			if res.Profile.Operator != op || res.Profile.Version != r.Profile {
				t.Errorf("%s@%s resolves to %s@%s, the index says %s", op, r.Version, res.Profile.Operator, res.Profile.Version, r.Profile)
			}
			// The tag is the version, or the version after a prefix
			// (Knative's knative-v1.15.2).
			if pv := res.Profile.Provenance; pv != nil && (pv.Tag != res.Profile.Version && !strings.HasSuffix(pv.Tag, "-"+res.Profile.Version) || len(pv.Files) == 0) {
				t.Errorf("%s@%s: provenance %+v does not match the profile", op, r.Version, pv)
			}
			n++
		}
	}
	t.Logf("%d releases of %d operators resolve", n, len(st.Operators()))
}
