package catalog

import (
	"errors"
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
	// Claims are rules for built-in Kubernetes kinds: warnings, problems
	// when Strict.
	Claims []string
	Strict bool
}

// Lint loads and validates the profiles of the directory named by args
// (at most one), the shipped set without; strict makes rules for built-in
// kinds problems. An error means the profiles could not be read at all.
func Lint(args []string, strict bool) (*LintReport, error) {
	opt := operators.LoadOptions{Embedded: profiles.FS}
	r := &LintReport{Where: "shipped profiles", Strict: strict}
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
	if len(r.Problems) > 0 || r.Empty() {
		return r, nil
	}
	r.Claims, err = operators.BuiltinClaims(st)
	return r, err
}

// Empty says that a named directory holds no profile, not even a broken
// one: an error.
func (r *LintReport) Empty() bool { return r.Profiles == 0 && r.Named && len(r.Problems) == 0 }

// OK says that the profiles pass: no problem, and with Strict no rule for
// a built-in kind.
func (r *LintReport) OK() bool { return len(r.Problems) == 0 && (!r.Strict || len(r.Claims) == 0) }

// Summary is the verdict in one line, for stderr.
func (r *LintReport) Summary() string {
	if n := len(r.Problems); n > 0 {
		return fmt.Sprintf("%s: %d problem(s)", r.Where, n)
	}
	if !r.OK() {
		return fmt.Sprintf("%s: %d rule(s) for built-in kinds (problems because of --strict)", r.Where, len(r.Claims))
	}
	return fmt.Sprintf("%s: %d operator(s), %d profile(s): ok", r.Where, r.Operators, r.Profiles)
}

// WriteText prints every problem, one line each with its file and line,
// or the summary line of profiles that passed.
func (r *LintReport) WriteText(w io.Writer) error {
	if r.OK() {
		_, err := fmt.Fprintln(w, r.Summary())
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, p.Error())
	}
	if len(r.Problems) == 0 {
		for _, c := range r.Claims {
			fmt.Fprintln(w, c+" (a problem because of --strict)")
		}
	}
	return nil
}

// Problem is one problem of a lint, located for a CI annotation.
type Problem struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}

// ProblemOf locates err when it is a LintError; otherwise the message alone.
func ProblemOf(err error) Problem {
	var le *operators.LintError
	if errors.As(err, &le) {
		return Problem{File: le.File, Line: le.Line, Rule: le.Rule, Message: le.Msg}
	}
	return Problem{Message: err.Error()}
}

// lintJSON is the JSON form of a LintReport.
type lintJSON struct {
	Where     string    `json:"where"`
	OK        bool      `json:"ok"`
	Operators int       `json:"operators"`
	Profiles  int       `json:"profiles"`
	Problems  []Problem `json:"problems"`
	Warnings  []string  `json:"warnings"`
	Claims    []string  `json:"builtinClaims"`
}

// WriteJSON prints the report as JSON: the counts, every problem with its
// file, line and rule, the warnings and the rules for built-in kinds.
func (r *LintReport) WriteJSON(w io.Writer) error {
	j := lintJSON{Where: r.Where, OK: r.OK(), Operators: r.Operators, Profiles: r.Profiles,
		Problems: []Problem{}, Warnings: append([]string{}, r.Warnings...), Claims: append([]string{}, r.Claims...)}
	for _, p := range r.Problems {
		j.Problems = append(j.Problems, ProblemOf(p))
	}
	return report.WriteJSON(w, j)
}
