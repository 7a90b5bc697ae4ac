package catalog

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Parameters is 'parameters': the announcement Argo CD's UI reads, offering
// every operator of the store with its newest checked release.
type Parameters struct {
	Announcements []cmpenv.Announcement
}

// ParametersOf announces the operators of st.
func ParametersOf(st *operators.Store) (*Parameters, error) {
	sums, err := st.Summaries()
	if err != nil {
		return nil, err
	}
	ops := map[string]string{}
	for _, s := range sums {
		if s.Newest != "" {
			ops[s.Operator] = strings.TrimPrefix(s.Newest, "v")
		}
	}
	return &Parameters{Announcements: cmpenv.Announce(ops)}, nil
}

// WriteText prints the announcement as JSON, its only form.
func (p *Parameters) WriteText(w io.Writer) error { return p.WriteJSON(w) }

// WriteJSON prints the announcement, a JSON array.
func (p *Parameters) WriteJSON(w io.Writer) error {
	out, err := json.MarshalIndent(p.Announcements, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}
