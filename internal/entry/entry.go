// Package entry is the first half of the process's entry point: it reads
// the command line and the environment, once, and when the process is to
// supervise a worker it does so from its init function and exits. Go
// initialises packages in the order of their import paths, each as soon
// as everything it imports is; this one imports the standard library and
// internal/supervisor (which does too), and its path sorts before Helm's,
// Kubernetes' and protobuf's, so the supervising parent never pays their
// initialisation. Everything else continues to main with what was read.
package entry

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

// What the process was started with: Arg0 and Args its command line,
// Environ its environment (nil in the worker, which is configured by its
// job), Worker whether it is the worker.
var (
	Arg0    string
	Args    []string
	Environ []string
	Worker  bool
)

func init() {
	Arg0, Args = os.Args[0], os.Args[1:]
	if Worker = len(Args) > 0 && Args[0] == supervisor.WorkerArg; Worker {
		return
	}
	Environ = os.Environ()
	if supervisor.Supervises(Args) && isBinary() {
		os.Exit(Supervise(Arg0, Args, Environ))
	}
}

// Supervise runs the command line in a worker, passing on SIGINT and
// SIGTERM, and returns the exit code.
func Supervise(arg0 string, args, environ []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A reader that goes away is an error to report, not a signal to die of.
	signal.Ignore(syscall.SIGPIPE)
	return supervisor.Parent(ctx, supervisor.Caller{Arg0: arg0, Args: args, Environ: environ, Stdin: os.Stdin}, os.Stdout, os.Stderr)
}

// isBinary says whether this is the cmp-defaults binary: a test binary's
// command line is the test's flags, and testscript's runs of the CLI (main,
// in a test binary) supervise from main.
func isBinary() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && bi.Path == "github.com/cmp-defaults/cmp-defaults/cmd/cmp-defaults"
}
