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
	// client-go logs what its errors say again; the errors are reported.
	klog.SetLogger(logr.Discard())
	if len(os.Args) > 1 && os.Args[1] == supervisor.WorkerArg {
		os.Exit(worker())
	}
	environ := os.Environ() // the process's one read of the environment
	if !supervisor.Supported || readsNothing(os.Args[1:]) {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := runEnv(ctx, os.Args[1:], environ, os.Stdin, os.Stdout, os.Stderr, nil)
		stop()
		os.Exit(code)
	}
	os.Exit(supervise(os.Args[1:], environ, os.Stdout, os.Stderr))
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

// supervise runs the command line in a worker process and prints its
// result: stdout only when complete, stderr bounded and printable, any
// death of the worker as one line.
func supervise(args, environ []string, stdout, stderr io.Writer) int {
	// A reader that goes away is an error to report, not a signal to die of.
	signal.Ignore(syscall.SIGPIPE)
	s, err := plugin.SidecarFromEnv(environ)
	if err != nil {
		fmt.Fprintln(stderr, "Error: "+supervisor.Printable(err.Error()))
		return exitUsage
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "Error: cannot find the cmp-defaults binary to start its worker: "+err.Error())
		return exitError
	}
	opt := supervisor.Options{Exe: exe, Arg0: os.Args[0], Env: supervisor.WorkerEnv, Job: supervisor.Job{Args: args, Environ: environ},
		Stdin: os.Stdin, MaxRSS: s.MaxMemory, Setting: "CMP_DEFAULTS_MAX_MEMORY_BYTES", Grace: 2 * time.Second, MaxStdout: s.MaxMemory}
	switch commandOf(args) {
	case "generate":
		// The sidecar's timeout bounds every tenant's.
		opt.Deadline = s.Timeout
	case "check", "learn", "extract":
		// Cluster commands run on a person's machine with their kubeconfig,
		// whose exec credential plugins need the environment (--no-exec refuses them).
		opt.Env = environ
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := supervisor.Run(ctx, opt)
	if err != nil {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return exitError
	}
	for _, l := range res.Stderr {
		fmt.Fprintln(stderr, l)
	}
	if res.Stopped != "" {
		fmt.Fprintln(stderr, "Error: "+res.Stopped)
		return exitError
	}
	if res.Code != exitOK && res.Code != exitFound {
		return res.Code
	}
	if err := writeOut(stdout, res.Stdout); err != nil {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return exitError
	}
	return res.Code
}

// readsNothing says whether args run a command that reads no input (help,
// the version, shell completion, which runs on every Tab): it runs without
// a worker.
func readsNothing(args []string) bool {
	switch commandOf(args) {
	case "", "help", "version", "completion", "__complete", "__completeNoDesc":
		return true
	}
	return false
}

// commandOf names the command args run: the first word that is not a
// flag (the root command takes no flag with a value), the second for
// 'profiles'. Building the cobra tree to ask would cost milliseconds.
func commandOf(args []string) string {
	var words []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			if words = append(words, a); words[0] != "profiles" || len(words) == 2 {
				break
			}
		}
	}
	switch {
	case len(words) == 0:
		return ""
	case words[0] == "profiles" && len(words) == 2:
		return words[1]
	}
	return words[0]
}

// writeOut writes a complete result: a failed or short write is an error,
// as a truncated stream must never be taken for a complete one.
func writeOut(stdout io.Writer, out []byte) error {
	n, err := stdout.Write(out)
	if err == nil && n < len(out) {
		err = io.ErrShortWrite
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("stdout was closed by its reader after %d of %d bytes; the result is incomplete and must not be used", n, len(out))
	}
	return fmt.Errorf("writing the output to stdout failed after %d of %d bytes: %v; the result is incomplete and must not be used", n, len(out), input.PathErr(err))
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

// run executes the CLI in this process, configured by its environment.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, args, os.Environ(), stdin, stdout, stderr, nil)
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
	if werr := writeOut(stdout, out.Bytes()); werr != nil {
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
