// Package opdocs renders the operator pages under docs/operators from the
// profiles: which releases were checked, the change points, and per kind
// and apiVersion the fields filled and their values.
package opdocs

import (
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Pages renders one page per operator, keyed by file name.
func Pages(st *operators.Store) (map[string][]byte, error) {
	return map[string][]byte{}, nil
}
