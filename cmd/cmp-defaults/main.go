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

	"github.com/cmp-defaults/cmp-defaults/internal/action"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	exitFound = 3 // audit, check and diff-releases: something was found
)

func main() {
	// Helm and kustomize log progress through the default loggers; only
	// warnings and errors belong on stderr, which Argo CD shows on failure.
	slog.SetLogLoggerLevel(slog.LevelWarn)
	if stdoutWasClosed() {
		fmt.Fprintln(os.Stderr, "Error: stdout is closed; nothing can be written, so nothing is run")
		os.Exit(exitError)
	}
	// Ctrl-C, or the repo-server ending the plugin, cancels renders and
	// cluster requests; stdout stays empty.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// limitsError is a bad limit in the environment (exit 2, no usage hint).
type limitsError struct{ error }

// usageHint is a usage mistake, with the command whose --help to read.
type usageHint struct {
	error
	path string
}

// mainerr executes the command line; what it prints goes to out.
func mainerr(ctx context.Context, args []string, stdin io.Reader, out *bytes.Buffer, stderr io.Writer) error {
	s, err := plugin.SidecarFromEnv(os.Environ())
	if err != nil {
		return limitsError{err}
	}
	ctx, stop := guard.Watch(ctx, s.MaxMemory)
	defer stop()
	c := &cli{Env: action.Env{Ctx: ctx, Stdin: stdin, Out: out, Stderr: stderr, Sidecar: s}}
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

// run executes the CLI and returns the exit code. Output is buffered and
// written only when the command succeeds: on any error stdout stays empty,
// so Argo CD never sees a partial stream (with prune: true, a short stream
// deletes workloads).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var out bytes.Buffer
	err := mainerr(ctx, args, stdin, &out, stderr)
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
	// A failed or short write is an error: a truncated stream must never
	// be taken for a complete one.
	if n, werr := stdout.Write(out.Bytes()); werr != nil || n < out.Len() {
		if werr == nil {
			werr = io.ErrShortWrite
		}
		fmt.Fprintf(stderr, "Error: writing the output to stdout failed after %d of %d bytes: %v; the result is incomplete and must not be used\n", n, out.Len(), input.PathErr(werr))
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
