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

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	exitFound = 3 // audit and diff-releases: something was found
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

// usageError marks a mistake in how the command was called (exit 2).
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// foundError ends a command that printed its findings with exit code 3.
type foundError struct{ msg string }

func (e foundError) Error() string { return e.msg }

// mainerr executes the command line; what it prints goes to out.
func mainerr(ctx context.Context, args []string, stdin io.Reader, out *bytes.Buffer, stderr io.Writer) error {
	c := &cli{stdin: stdin, out: out, errw: stderr}
	if err := c.readEnv(); err != nil {
		return err
	}
	ctx, stop := guard.Watch(ctx, c.maxMemory)
	defer stop()
	c.ctx = ctx
	root := c.root()
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return nil
	}
	// Flag and argument errors are usageErrors (flagError, usageArgs);
	// cobra's only other one is an unknown command, which Find repeats.
	var ue usageError
	var ce configError
	if _, _, unknown := root.Find(args); unknown != nil || errors.Is(err, input.ErrDirectory) || (errors.As(err, &ue) && !errors.As(err, &ce)) {
		return usageHint{err, commandPath(root, args)}
	}
	return err
}

// usageHint is a usage mistake, with the command whose --help to read.
type usageHint struct {
	error
	path string
}

// run executes the CLI and returns the exit code. Output is buffered and
// written only when the command succeeds: on any error stdout stays empty,
// so Argo CD never sees a partial stream (with prune: true, a short stream
// deletes workloads).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var out bytes.Buffer
	err := mainerr(ctx, args, stdin, &out, stderr)
	var found foundError
	var le limitsError
	switch {
	case err == nil:
		if err := writeOut(stdout, out.Bytes()); err != nil {
			fmt.Fprintln(stderr, "Error: "+err.Error())
			return exitError
		}
		return exitOK
	case errors.As(err, &le):
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return exitUsage
	case errors.As(err, &found):
		if err := writeOut(stdout, out.Bytes()); err != nil {
			fmt.Fprintln(stderr, "Error: "+err.Error())
			return exitError
		}
		if found.msg != "" {
			fmt.Fprintln(stderr, found.msg)
		}
		return exitFound
	}
	fmt.Fprintln(stderr, "Error: "+strings.TrimSpace(err.Error()))
	var hint usageHint
	if errors.As(err, &hint) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", hint.path)
		return exitUsage
	}
	return exitError
}

// writeOut writes the whole output: a failed or short write is an error,
// so that a truncated stream is never taken for a complete one.
func writeOut(w io.Writer, b []byte) error {
	n, err := w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("writing the output to stdout failed after %d of %d bytes: %v; the result is incomplete and must not be used", n, len(b), input.PathErr(err))
	}
	return nil
}

func commandPath(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return root.Name()
	}
	return cmd.CommandPath()
}
