package main

import (
	"os"

	"github.com/cmp-defaults/cmp-defaults/internal/opdocs"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// docPages renders docs/operators/<operator>.md for every operator in the
// profiles directory, as the docs test does from the embedded copy.
func docPages(profilesDir string) (map[string][]byte, error) {
	st, err := operators.Load(operators.LoadOptions{Embedded: os.DirFS(profilesDir)})
	if err != nil {
		return nil, err
	}
	return opdocs.Pages(st)
}
