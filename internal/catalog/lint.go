package catalog

import (
	"fmt"
	"io"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
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

// Write prints the report: the problems but the last to errw (the last is
// in the error returned), or the claims as warnings and a summary line to
// out. The error is the verdict: nil when the profiles are fine.
func (r *LintReport) Write(out, errw io.Writer, strict bool) error {
	if n := len(r.Problems); n > 0 {
		for _, e := range r.Problems[:n-1] {
			fmt.Fprintln(errw, "Error: "+e.Error())
		}
		if n == 1 {
			return r.Problems[0]
		}
		return fmt.Errorf("%v\n%s: %d problem(s)", r.Problems[n-1], r.Where, n)
	}
	if r.empty() {
		return fmt.Errorf("%s: no profiles found", r.Where)
	}
	for _, cl := range r.Claims {
		if strict {
			return fmt.Errorf("%s (an error because of --strict)", cl)
		}
		fmt.Fprintln(errw, "Warning: "+cl)
	}
	_, err := fmt.Fprintf(out, "%s: %d operator(s), %d profile(s): ok\n", r.Where, r.Operators, r.Profiles)
	return err
}
