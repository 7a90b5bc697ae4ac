// Package entry is the first half of the process's entry point: it reads
// the command line and the environment, and when the process is to
// supervise a worker it does so from its init function and exits, so the
// supervising parent never initialises Helm, Kubernetes or JSON Schema
// packages. Go initialises packages in the order of their import paths, a
// package as soon as everything it imports is (the spec, since Go 1.21):
// this one sorts before those and imports the standard library only (and
// internal/supervisor, internal/settings, which do too). Everything else
// continues to main, with what was read here.
package entry

import (
	"os"
	"runtime/debug"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

// What the process was started with, read once, here: Arg0 and Args its
// command line, Environ its environment (nil in the worker, which is
// configured by the job), Worker whether it is the worker.
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
	if Supervises() && isBinary() {
		os.Exit(Supervise(Args, Environ, os.Stdout, os.Stderr))
	}
}

// isBinary says whether this is the cmp-defaults binary: a test binary's
// command line is the test's flags, and testscript's runs of the CLI
// (main, in a test binary) supervise from main.
func isBinary() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && bi.Path == "github.com/cmp-defaults/cmp-defaults/cmd/cmp-defaults"
}
