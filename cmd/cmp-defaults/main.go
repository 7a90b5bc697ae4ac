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
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"

	"github.com/cmp-defaults/cmp-defaults/cmd/cmp-defaults/entry"
)

// Exit codes.
const (
	exitOK    = entry.ExitOK
	exitError = entry.ExitError
	exitUsage = entry.ExitUsage
	exitFound = entry.ExitFound
)

// main is the second half of the entry point: package entry, initialised
// before Helm and Kubernetes, read the command line and the environment and
// has already supervised the worker, if this process is the parent.
func main() {
	// Helm and kustomize log progress through the default loggers; only
	// warnings and errors belong on stderr, which Argo CD shows on failure.
	slog.SetLogLoggerLevel(slog.LevelWarn)
	// client-go logs what its errors say again; the errors are reported.
	klog.SetLogger(logr.Discard())
	if entry.Worker {
		os.Exit(worker())
	}
	if !entry.Supervises() {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := runEnv(ctx, entry.Args, entry.Environ, os.Stdin, os.Stdout, os.Stderr, nil)
		stop()
		os.Exit(code)
	}
	// A test binary (testscript runs main) supervises from here.
	os.Exit(entry.Supervise(entry.Args, entry.Environ, os.Stdout, os.Stderr))
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
	return runEnv(ctx, job.Args, job.Environ, os.Stdin, os.Stdout, os.Stderr, supervisor.Report)
}

// limitsError is a bad limit in the environment (exit 2, no usage hint).
type limitsError struct{ error }

// usageHint is a usage mistake, with the command whose --help to read.
type usageHint struct {
	error
	path string
}

// mainerr executes the command line; what it prints goes to out.
func mainerr(ctx context.Context, args, environ []string, stdin io.Reader, out *bytes.Buffer, stderr io.Writer, deadline func(time.Duration, string)) error {
	s, err := plugin.SidecarFromEnv(environ)
	if err != nil {
		return limitsError{err}
	}
	ctx, stop := guard.Watch(ctx, s.MaxMemory)
	defer stop()
	c := &cli{Env: action.Env{Ctx: ctx, Stdin: stdin, Out: out, Stderr: stderr, Sidecar: s, Environ: environ, Deadline: deadline}}
	c.Sidecar.Limits.Warn = func(m string) { c.Warn(m) }
	root := c.root()
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(stderr)
	if err = root.ExecuteContext(ctx); err == nil {
		return nil
	}
	// Flag and argument errors are UsageErrors (flagError, usageArgs);
	// cobra's only other one is an unknown command, which Find repeats.
	var ue action.UsageError
	var ce action.ConfigError
	cmd, _, unknown := root.Find(args)
	if unknown != nil || errors.Is(err, input.ErrDirectory) || (errors.As(err, &ue) && !errors.As(err, &ce)) {
		path := root.Name()
		if unknown == nil && cmd != nil {
			path = cmd.CommandPath()
		}
		return usageHint{err, path}
	}
	return err
}

// runEnv executes the CLI and returns the exit code. Output is buffered
// and written only when the command succeeds: on any error stdout stays
// empty, so Argo CD never sees a partial stream (with prune: true, a short
// stream deletes workloads). deadline, when set, hears of a run's timeout.
func runEnv(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer, deadline func(time.Duration, string)) int {
	var out bytes.Buffer
	err := mainerr(ctx, args, environ, stdin, &out, stderr, deadline)
	var found action.Found
	var le limitsError
	var hint usageHint
	switch {
	case errors.As(err, &le):
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return exitUsage
	case err != nil && !errors.As(err, &found):
		fmt.Fprintln(stderr, "Error: "+strings.TrimSpace(err.Error()))
		if errors.As(err, &hint) {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", hint.path)
			return exitUsage
		}
		return exitError
	}
	if werr := entry.WriteOut(stdout, out.Bytes()); werr != nil {
		fmt.Fprintln(stderr, "Error: "+werr.Error())
		return exitError
	}
	if err == nil {
		return exitOK
	}
	if found.Msg != "" {
		fmt.Fprintln(stderr, found.Msg)
	}
	return exitFound
}
