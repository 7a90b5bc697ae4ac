package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Exit codes of the command, the worker's and the parent's.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
	ExitFound = 3 // audit, check and diff-releases: something was found
)

// Caller is what the supervising process was started with, read once by
// the command's main.
type Caller struct {
	Arg0    string
	Args    []string
	Environ []string
	Stdin   *os.File
}

// Supervises says whether a command line runs in a worker: on Linux, for
// every command that reads input.
func Supervises(args []string) bool {
	return Supported && !readsNothing(args)
}

// Parent runs the caller's command line in a worker process and prints its
// result: stdout only when complete, stderr bounded and printable, any
// death of the worker as one line. It returns the exit code.
func Parent(ctx context.Context, c Caller, stdout, stderr io.Writer) int {
	s, err := settings.FromEnv(c.Environ)
	if err != nil {
		fmt.Fprintln(stderr, "Error: "+Printable(err.Error()))
		return ExitUsage
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "Error: cannot find the cmp-defaults binary to start its worker: "+err.Error())
		return ExitError
	}
	opt := Options{Exe: exe, Arg0: c.Arg0, Env: WorkerEnv, Job: Job{Args: c.Args, Environ: c.Environ},
		Stdin: c.Stdin, MaxRSS: s.MaxMemory, Setting: "CMP_DEFAULTS_MAX_MEMORY_BYTES", Grace: 2 * time.Second, MaxStdout: MaxOutput(s.MaxMemory)}
	switch commandOf(c.Args) {
	case "generate":
		// The sidecar's timeout bounds every tenant's.
		opt.Deadline = s.Timeout
	case "check", "learn", "extract":
		// Cluster commands run on a person's machine with their kubeconfig,
		// whose exec credential plugins need the environment (--no-exec refuses them).
		opt.Env = c.Environ
	}
	res, err := Run(ctx, opt)
	if err != nil {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return ExitError
	}
	for _, l := range res.Stderr {
		fmt.Fprintln(stderr, l)
	}
	if res.Stopped != "" {
		fmt.Fprintln(stderr, "Error: "+res.Stopped)
		return ExitError
	}
	if res.Code != ExitOK && res.Code != ExitFound {
		return res.Code
	}
	if err := WriteOut(stdout, res.Stdout...); err != nil {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return ExitError
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

// MaxOutput is the largest output a run may print under a memory budget:
// a quarter of it. The supervisor keeps the whole output until the worker
// has ended, while the worker holds its objects and its own copy of it;
// both count against the one budget.
func MaxOutput(budget int64) int64 { return budget / 4 }

// WriteOut writes a complete result, given in parts: a failed or short
// write is an error, as a truncated stream must never be taken for a
// complete one.
func WriteOut(stdout io.Writer, parts ...[]byte) error {
	var n, size int
	for _, p := range parts {
		size += len(p)
	}
	for _, p := range parts {
		k, err := stdout.Write(p)
		n += k
		if err == nil && k < len(p) {
			err = io.ErrShortWrite
		}
		if err == nil {
			continue
		}
		if errors.Is(err, syscall.EPIPE) {
			return fmt.Errorf("stdout was closed by its reader after %d of %d bytes; the result is incomplete and must not be used", n, size)
		}
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err // the path is stdout's
		}
		return fmt.Errorf("writing the output to stdout failed after %d of %d bytes: %v; the result is incomplete and must not be used", n, size, err)
	}
	return nil
}
