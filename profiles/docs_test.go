package profiles_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/opdocs"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

var update = flag.Bool("update", false, "rewrite docs/operators from the shipped profiles")

// TestOperatorPages fails when a page under docs/operators is not what the
// shipped profiles give: one page per operator, none left over.
func TestOperatorPages(t *testing.T) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := opdocs.Pages(st)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "docs", "operators")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range pages {
		file := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale or missing; regenerate with: go test ./profiles -run TestOperatorPages -update", file)
		}
	}
	existing, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, f := range existing {
		if _, ok := pages[filepath.Base(f)]; !ok {
			t.Errorf("%s belongs to no shipped operator; remove it", f)
		}
	}
}
