package warn

import (
	"strings"
	"testing"
)

// Lines written on the captured stderr become logged warnings, quoted;
// the mark is not one of them.
func TestReadLogged(t *testing.T) {
	var l List
	synced := make(chan struct{}, 1)
	in := "# Warning: 'bases' is deprecated.\nsync 42\n" + strings.Repeat("x", 10<<10) + "\nlast\n"
	readLogged(strings.NewReader(in), &l, []byte("sync 42\n"), synced)
	select {
	case <-synced:
	default:
		t.Error("the mark was not signalled")
	}
	got := l.Lines()
	if len(got) != 3 || got[0] != `logged while rendering: "# Warning: 'bases' is deprecated."` || !strings.Contains(got[1], "more bytes cut") || got[2] != `logged while rendering: "last"` {
		t.Errorf("%q", got)
	}
}
