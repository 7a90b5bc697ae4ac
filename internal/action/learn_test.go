package action

import "testing"

func TestLearnedAt(t *testing.T) {
	for _, c := range []struct {
		flag, env, want string
		err             bool
	}{
		{"", "", "", false},
		{"", "1796115600", "2026-12-01T09:00:00Z", false},
		{"2026-12-01T10:00:00+01:00", "1", "2026-12-01T09:00:00Z", false},
		{"yesterday", "", "", true},
		{"", "soon", "", true},
	} {
		got, err := LearnedAt(c.flag, c.env)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("LearnedAt(%q) with SOURCE_DATE_EPOCH=%q = %q, %v; want %q (error %v)", c.flag, c.env, got, err, c.want, c.err)
		}
	}
	if got, err := LearnedAt("now", ""); err != nil || got == "" {
		t.Errorf("now: %q, %v", got, err)
	}
}
