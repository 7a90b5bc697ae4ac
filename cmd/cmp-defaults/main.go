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
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/guard"
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
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageError marks a mistake in how the command was called (exit 2).
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// foundError ends a command that printed its findings with exit code 3.
type foundError struct{ msg string }

func (e foundError) Error() string { return e.msg }

// run executes the CLI. Output is buffered and written only when the command
// succeeds: on any error stdout stays empty, so Argo CD never sees a partial
// stream (with prune: true, a short stream deletes workloads).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var out bytes.Buffer
	c := &cli{stdin: stdin, out: &out, errw: stderr}
	if err := c.readLimits(); err != nil {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return exitUsage
	}
	ctx, stop := guard.Watch(context.Background(), c.maxMemory)
	defer stop()
	c.ctx = ctx
	root := c.root()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(stderr)
	err := root.Execute()
	var found foundError
	switch {
	case err == nil:
		if err := writeOut(stdout, out.Bytes()); err != nil {
			fmt.Fprintln(stderr, "Error: "+err.Error())
			return exitError
		}
		return exitOK
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
	msg := err.Error()
	fmt.Fprintln(stderr, "Error: "+strings.TrimSpace(msg))
	var ue usageError
	var ce configError
	if errors.As(err, &ce) {
		return exitError
	}
	if errors.As(err, &ue) || isCobraUsage(msg) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", commandPath(root, args))
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
		return fmt.Errorf("writing the output to stdout failed after %d of %d bytes: %v; the result is incomplete and must not be used", n, len(b), pathErr(err))
	}
	return nil
}

// isCobraUsage recognises cobra's own flag and argument errors.
func isCobraUsage(msg string) bool {
	for _, s := range []string{"unknown flag", "unknown shorthand flag", "unknown command", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires exactly", "required flag", "if any flags in the group"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func commandPath(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return root.Name()
	}
	return cmd.CommandPath()
}
