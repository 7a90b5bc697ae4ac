// Command cmp-defaults renders manifests and pre-fills the fields that
// Kubernetes admission will add, so Argo CD diffs come out clean.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/entry"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

// Exit codes.
const (
	exitOK    = supervisor.ExitOK
	exitError = supervisor.ExitError
	exitUsage = supervisor.ExitUsage
	exitFound = supervisor.ExitFound
)

// main runs the command: package entry has read the command line and the
// environment (the process's one read of them) and, for a command that
// reads input on Linux, already supervised its worker and exited; what
// reaches main is the worker, or a command run in this process (help,
// version, completion, other systems than Linux, a test binary).
func main() {
	// Helm and kustomize log progress through the default loggers; only
	// warnings and errors belong on stderr, which Argo CD shows on failure.
	slog.SetLogLoggerLevel(slog.LevelWarn)
	// client-go logs what its errors say again; the errors are reported.
	klog.SetLogger(logr.Discard())
	if entry.Worker {
		os.Exit(worker())
	}
	if supervisor.Supervises(entry.Args) {
		os.Exit(entry.Supervise(entry.Arg0, entry.Args, entry.Environ))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runEnv(ctx, entry.Args, entry.Environ, os.Stdin, os.Stdout, os.Stderr, nil)
	stop()
	os.Exit(code)
}

// worker runs the job the supervisor hands over (internal/supervisor):
// the command line, configured by the environment the supervisor read.
func worker() int {
	job, err := supervisor.ReadJob()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error: "+err.Error())
		return exitUsage
	}
	// Ctrl-C, or the supervisor passing on the repo-server's end of the
	// plugin, cancels renders and cluster requests; stdout stays empty.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := runEnv(ctx, job.Args, job.Environ, os.Stdin, os.Stdout, os.Stderr, supervisor.Report)
	if code == exitError || code == exitUsage {
		supervisor.ReportFailed() // its last line is its own Error:
	}
	return code
}

// limitsError is a bad limit in the environment (exit 2, no usage hint).
type limitsError struct{ error }

// usageHint is a usage mistake, with the command whose --help to read.
type usageHint struct {
	error
	path string
}

// mainerr executes the command line. The cli it returns holds what the
// command returned and warned about, for present; cobra's own output (help,
// version, completion) is in out.
func mainerr(ctx context.Context, args, environ []string, stdin io.Reader, out *bytes.Buffer, stderr io.Writer, deadline func(time.Duration, string)) (*cli, error) {
	s, err := plugin.SidecarFromEnv(environ)
	if err != nil {
		return nil, limitsError{err}
	}
	ctx, stop := guard.Watch(ctx, s.MaxMemory)
	defer stop()
	// The working directory is generate's application; an unknown one
	// (removed under the process) is generate's error to report.
	wd, _ := os.Getwd()
	c := &cli{Env: action.Env{Stdin: stdin, Sidecar: s, Environ: environ, WorkDir: wd, Deadline: deadline}, Stderr: stderr}
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

// runEnv executes the CLI, presents what the command returned and returns
// the exit code. deadline, when set, hears of a run's timeout.
func runEnv(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer, deadline func(time.Duration, string)) int {
	var out bytes.Buffer
	c, err := mainerr(ctx, args, environ, stdin, &out, stderr, deadline)
	return present(c, err, &out, stdout, stderr)
}

// present is the one presenter of the commands' results. On stderr: the
// warnings, the result's notes, then the error or the summary of a
// finding. On stdout: cobra's own output and the result -- its report as
// -o asks (report.Write) or its encoded objects -- buffered and written
// only when the command succeeded: on any error stdout stays empty, so
// Argo CD never sees a partial stream (with prune: true, a short stream
// deletes workloads). Exit codes: 0 ok, 1 error, 2 usage, 3 found.
func present(c *cli, err error, out *bytes.Buffer, stdout, stderr io.Writer) int {
	var le limitsError
	if errors.As(err, &le) {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return exitUsage
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(stderr, "Warning: "+w)
	}
	res := c.result
	if res == nil {
		res = &action.Result{}
	}
	io.WriteString(stderr, res.Notes)
	if err == nil {
		if res.Report != nil {
			err = report.Write(out, res.Report, c.format)
		}
	}
	if err != nil {
		var hint usageHint
		fmt.Fprintln(stderr, "Error: "+strings.TrimSpace(err.Error()))
		if errors.As(err, &hint) {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", hint.path)
			return exitUsage
		}
		return exitError
	}
	// The encoded objects are written as they are, not copied after
	// cobra's output: a large stream is held once.
	if werr := supervisor.WriteOut(stdout, out.Bytes(), res.Output); werr != nil {
		fmt.Fprintln(stderr, "Error: "+werr.Error())
		return exitError
	}
	if !res.Found {
		return exitOK
	}
	if res.Summary != "" {
		fmt.Fprintln(stderr, res.Summary)
	}
	return exitFound
}
