package catalog

import (
	"fmt"
	"io"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// LintReport is 'profiles lint': the problems of a set of profiles, or
// their counts when there is none.
type LintReport struct {
	Where     string // the directory, or "shipped profiles"
	Named     bool   // a directory was named: an empty one is an error
	Warnings  []string
	Operators int
	Profiles  int
	Problems  []error
	// Claims are rules for built-in Kubernetes kinds: warnings, errors
	// when strict.
	Claims []string
}

// Lint loads and validates the profiles of the directory named by args
// (at most one), the shipped set without. An error means the profiles
// could not be read at all.
func Lint(args []string) (*LintReport, error) {
	opt := operators.LoadOptions{Embedded: profiles.FS}
	r := &LintReport{Where: "shipped profiles"}
	if len(args) > 0 {
		opt = operators.LoadOptions{Dirs: args, KeepGoing: true}
		r.Where, r.Named = args[0], true
	}
	st, err := operators.Load(opt)
	if err != nil {
		return nil, err
	}
	r.Warnings = st.Warnings
	r.Operators = len(st.Operators())
	r.Profiles, r.Problems = operators.Lint(st)
	if len(r.Problems) > 0 || r.empty() {
		return r, nil
	}
	r.Claims, err = operators.BuiltinClaims(st)
	return r, err
}

func (r *LintReport) empty() bool { return r.Profiles == 0 && r.Named }

// Check is the verdict on the profiles, nil when they are fine: the last
// problem (with how many there are), no profiles in a named directory, or
// with strict the first claim on a built-in kind.
func (r *LintReport) Check(strict bool) error {
	if n := len(r.Problems); n > 0 {
		if n == 1 {
			return r.Problems[0]
		}
		return fmt.Errorf("%v\n%s: %d problem(s)", r.Problems[n-1], r.Where, n)
	}
	if r.empty() {
		return fmt.Errorf("%s: no profiles found", r.Where)
	}
	if strict && len(r.Claims) > 0 {
		return fmt.Errorf("%s (an error because of --strict)", r.Claims[0])
	}
	return nil
}

// WriteText prints the summary line of profiles that passed.
func (r *LintReport) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: %d operator(s), %d profile(s): ok\n", r.Where, r.Operators, r.Profiles)
	return err
}

// WriteJSON prints the report as JSON.
func (r *LintReport) WriteJSON(w io.Writer) error { return report.WriteJSON(w, r) }
