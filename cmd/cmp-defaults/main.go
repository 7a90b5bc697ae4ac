// Command cmp-defaults renders manifests and pre-fills the fields that
// Kubernetes admission will add, so Argo CD diffs come out clean.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/entry"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/quote"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/sandbox"
	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// logged holds what Helm and kustomize log through the standard log package
// (and slog's default handler): printed among the warnings, quoted and counted.
var logged warn.List

// main runs the worker, or a command run in this process (help, version,
// completion, other systems, a test binary): package entry has read the
// command line and environment and already supervised any worker.
func main() {
	// Only warnings and errors belong on stderr, which Argo CD shows on failure.
	slog.SetLogLoggerLevel(slog.LevelWarn)
	log.SetFlags(0)
	log.SetOutput(&logged)
	// client-go logs what its errors say again; the errors are reported.
	klog.SetLogger(logr.Discard())
	if entry.Worker {
		os.Exit(worker())
	}
	if supervisor.Supervises(entry.Args) {
		os.Exit(entry.Supervise(entry.Arg0, entry.Args, entry.Environ))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runEnv(ctx, entry.Args, entry.Environ, os.Stdin, os.Stdout, os.Stderr, inWorker{})
	stop()
	os.Exit(code)
}

// worker runs the job the supervisor hands over (internal/supervisor).
func worker() int {
	debug.SetGCPercent(supervisor.GCPercent) // started with GOGC=off for its initialisation
	// Library writes to os.Stderr become warnings (a crash still reaches fd 2).
	stderr, sync := os.Stderr, func() {}
	if w, s, err := warn.Pipe(&logged); err == nil {
		os.Stderr, sync = w, s
	}
	job, err := supervisor.ReadJob()
	if err != nil {
		printError(stderr, err)
		return supervisor.ExitUsage
	}
	// A signal cancels renders and cluster requests; stdout stays empty.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var out bytes.Buffer
	c, err := mainerr(ctx, job.Args, job.Environ, os.Stdin, &out, stderr, inWorker{deadline: supervisor.Report, confine: sandbox.Confine})
	sync() // what the libraries wrote on os.Stderr is among the warnings
	code := present(c, err, &out, os.Stdout, stderr)
	if code == supervisor.ExitError || code == supervisor.ExitUsage {
		supervisor.ReportFailed() // its last lines are its own Error:
	}
	return code
}

// inWorker is what a worker adds to a command: the supervisor hears of its
// deadline, and a command that reads a source confines the process first.
type inWorker struct {
	deadline func(time.Duration, string)
	confine  func(read []string) ([]sandbox.Layer, error)
}

// limitsError is a bad limit in the environment (exit 2, no usage hint).
type limitsError struct{ error }

// usageHint is a usage mistake, with the command whose --help to read.
type usageHint struct {
	error
	path string
}

// mainerr executes the command line; the cli holds its result and warnings
// for present, cobra's own output is in out.
func mainerr(ctx context.Context, args, environ []string, stdin io.Reader, out *bytes.Buffer, stderr io.Writer, w inWorker) (*cli, error) {
	s, err := cmpenv.SidecarFromEnv(environ)
	if err != nil {
		return nil, limitsError{err}
	}
	ctx, stop := guard.Watch(ctx, s.MaxMemory)
	defer stop()
	// An unknown working directory is generate's error to report.
	wd, _ := os.Getwd()
	c := &cli{Env: action.Env{Stdin: stdin, Sidecar: s, Environ: environ, WorkDir: wd, Deadline: w.deadline, Confine: w.confine}, Stderr: stderr}
	root := c.root()
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(stderr)
	if err = root.ExecuteContext(ctx); err == nil {
		return c, nil
	}
	if cmd, _, _ := root.Find(args); cmd == nil || cmd.Name() != "generate" {
		err = action.UserPaths(err, wd, args)
	}
	// Flag and argument errors are UsageErrors (flagError, usageArgs);
	// cobra's only other one is an unknown command, which Find repeats.
	var ue action.UsageError
	var ce action.ConfigError
	cmd, _, unknown := root.Find(args)
	if unknown != nil || errors.Is(err, manifest.ErrDirectory) || (errors.As(err, &ue) && !errors.As(err, &ce)) {
		path := root.Name()
		if unknown == nil && cmd != nil {
			path = cmd.CommandPath()
		}
		return c, usageHint{err, path}
	}
	return c, err
}

// runEnv executes the CLI and presents its result; it returns the exit code.
func runEnv(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer, w inWorker) int {
	var out bytes.Buffer
	c, err := mainerr(ctx, args, environ, stdin, &out, stderr, w)
	return present(c, err, &out, stdout, stderr)
}

// present is the one presenter. On stderr: the warnings, the notes, then
// the error or a finding's summary. On stdout, only when the command
// succeeded: cobra's output and the result (report.Write, or the encoded
// objects), so Argo CD never sees a partial stream (with prune: true, a
// short stream deletes workloads). Exit codes: 0 ok, 1 error, 2 usage, 3 found.
func present(c *cli, err error, out *bytes.Buffer, stdout, stderr io.Writer) int {
	var le limitsError
	if errors.As(err, &le) {
		printError(stderr, err)
		return supervisor.ExitUsage
	}
	c.Warnings.Merge(&logged)
	for _, w := range c.Warnings.Lines() {
		fmt.Fprintln(stderr, "Warning: "+w)
	}
	res := c.result
	if res == nil {
		res = &action.Result{}
	}
	io.WriteString(stderr, quote.Text(res.Notes))
	if err == nil && res.Report != nil {
		err = report.Write(out, res.Report, c.format)
	}
	if err != nil {
		var hint usageHint
		printError(stderr, err)
		if errors.As(err, &hint) {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", hint.path)
			return supervisor.ExitUsage
		}
		return supervisor.ExitError
	}
	// The objects are written as they are: a large stream is held once.
	if werr := supervisor.WriteOut(stdout, out.Bytes(), res.Output); werr != nil {
		printError(stderr, werr)
		return supervisor.ExitError
	}
	if !res.Found {
		return supervisor.ExitOK
	}
	if res.Summary != "" {
		fmt.Fprintln(stderr, res.Summary)
	}
	return supervisor.ExitFound
}

// printError writes err on stderr as quote.Error formats it.
func printError(stderr io.Writer, err error) { io.WriteString(stderr, quote.Error(err)) }
