// Package action holds the use cases behind the commands: each is a struct
// of options (New* constructors set the defaults) with a method
// Run(ctx, *Env) that returns a Result -- a typed report or the encoded
// objects -- and prints nothing. cmd/ binds flags onto these structs, calls
// Run, presents the Result and maps it and the errors below to exit codes;
// what a command computes lives here and in the packages it calls.
package action

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/sandbox"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// Env is one invocation: stdin, the sidecar settings read once from the
// process environment, and the warnings of the run.
type Env struct {
	Stdin   io.Reader
	Sidecar cmpenv.Sidecar
	// Environ and WorkDir are the process environment (os.Environ form)
	// and working directory, read once by main: generate's configuration
	// and SOURCE_DATE_EPOCH come from them.
	Environ []string
	WorkDir string
	// Deadline, when set, hears of the timeout of a run as it starts, and
	// the setting that raises it (the supervisor stops a run past it).
	Deadline func(d time.Duration, setting string)
	// Confine, set in a worker process (sandbox.Confine), confines it for
	// good to reading beneath the paths given, with no network, and
	// returns the layers the kernel lacks. The commands that read a
	// source call it once, before they read anything.
	Confine func(read []string) (missing []sandbox.Layer, err error)
	// Warnings are what the run warns about, in the order they arose (the
	// first of each kind, warn.List), kept on failure too: cmd/ prints them
	// before the output or error.
	Warnings warn.List

	store     *operators.Store // loaded once per run for storeDirs
	storeDirs []string
	kinds     kindCheck // apiVersion and kind already warned about
	confined  bool
}

// fork is an Env for one of several renders running at once: the run's
// settings and loaded profile store, and warnings of its own for the
// caller to merge in a fixed order. It is not confined again, and its
// deadlines are the run's.
func (env *Env) fork() *Env {
	return &Env{Sidecar: env.Sidecar, Environ: env.Environ, WorkDir: env.WorkDir,
		store: env.store, storeDirs: env.storeDirs, kinds: kindCheck{names: env.kinds.names, cmp: env.kinds.cmp}, confined: true}
}

// Getenv is the value of name in Environ.
func (env *Env) Getenv(name string) string {
	for _, kv := range env.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// deadline tells Deadline of a run's timeout.
func (env *Env) deadline(d time.Duration, setting string) {
	if env.Deadline != nil && d > 0 {
		env.Deadline(d, setting)
	}
}

// UsageError is a mistake in how the command was called: the caller
// points at --help (exit 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ArgCount refuses a number of arguments outside min to max (-1: no
// limit), saying what the command takes.
func ArgCount(command string, args []string, min, max int, what string) error {
	if len(args) >= min && (max < 0 || len(args) <= max) {
		return nil
	}
	got := "no argument"
	if len(args) > 0 {
		got = fmt.Sprintf("%d argument(s) (%s)", len(args), strings.Join(args, " "))
	}
	return Usagef("got %s; '%s' takes %s", got, command, what)
}

// Usagef is a UsageError.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// ConfigError is a mistake in generate's configuration: exit 1, since Argo
// CD shows the message and usage text helps nobody there.
type ConfigError struct{ Err error }

func (e ConfigError) Error() string { return e.Err.Error() }
func (e ConfigError) Unwrap() error { return e.Err }

// Warn records warnings of the run.
func (env *Env) Warn(ws ...string) { env.Warnings.Add(warn.General, ws...) }

// warnDuplicate records a warning of the decoder: a duplicate key.
func (env *Env) warnDuplicate(m string) { env.Warnings.Add(warn.DuplicateKeys, m) }

// Result is what a use case made, for cmd/ to present: on stdout its
// Report in the format -o asks for, or its Output as it is; on stderr its
// Notes, then Summary when Found.
type Result struct {
	Report Report
	Output []byte // encoded objects or a profile, written as they are
	Notes  string // for stderr, as it is: a learning report, what was written where
	// Found: the command found what it looks for (a redundant rule, a
	// difference): exit 3 after the output, Summary on stderr when set.
	Found   bool
	Summary string
}

// Write writes the result for stdout: its report in format (report.Write),
// else its output as it is.
func (r *Result) Write(w io.Writer, format string) error {
	if r.Report != nil {
		return report.Write(w, r.Report, format)
	}
	_, err := w.Write(r.Output)
	return err
}

// Report is a typed report, written as text, JSON or YAML (report.Write).
type Report = report.Writer

// Operators selects operator releases, as --operator, --profiles-dir and
// --strict do on every command.
type Operators struct {
	Refs        []string // NAME@VERSION, comma lists allowed
	ProfileDirs []string // default: the sidecar's
	Strict      bool
}

// checkUnserved warns once per run about each apiVersion and kind of objs
// that a selected release does not serve (unserved); --strict makes the
// first an error.
func (env *Env) checkUnserved(res []*operators.Resolution, objs []manifest.Object, strict bool) error {
	return env.kinds.check(env.store, res, objs, strict, &env.Warnings)
}

// strictError is a warning refused because strict mode is on, naming the
// setting that made it so.
func strictError(n settings.Names, msg string) error {
	if n.CMP {
		return ConfigError{fmt.Errorf("%s (an error because %s is true)", msg, n.Of(settings.Strict))}
	}
	return fmt.Errorf("%s (an error because of --strict)", msg)
}

// badSetting reports a wrong value of a setting: a usage mistake on the
// command line, a configuration error under Argo CD naming the setting.
func badSetting(n settings.Names, s *settings.Setting, err error) error {
	var ue UsageError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if n.CMP {
		return ConfigError{fmt.Errorf("%s: %v", n.Of(s), err)}
	}
	return UsageError{err}
}

// selectionError names the setting of a bad operator reference and adds
// to a resolve error how to act on it here.
func selectionError(n settings.Names, err error) error {
	var ref *operators.RefError
	if errors.As(err, &ref) {
		return badSetting(n, settings.Operators, ref.Err)
	}
	var re *operators.ResolveError
	if !errors.As(err, &re) {
		return err
	}
	ops := n.Of(settings.Operators)
	switch {
	case re.Unknown && n.CMP:
		return ConfigError{fmt.Errorf("%s: %s (add profiles for it to the ConfigMap cmp-defaults-profiles mounted at $CMP_DEFAULTS_PROFILES_DIR in the sidecar; docs/install.md)", ops, re.Msg)}
	case re.Unknown:
		return fmt.Errorf("%s (add your own with --profiles-dir)", re.Msg)
	case re.Strict && n.CMP:
		return ConfigError{fmt.Errorf("%s: %s (an error because %s is true)", ops, re.Msg, n.Of(settings.Strict))}
	case re.Strict:
		return fmt.Errorf("%s (an error because of --strict)", re.Msg)
	case n.CMP:
		return ConfigError{fmt.Errorf("%s: %s", ops, re.Msg)}
	}
	return err
}
