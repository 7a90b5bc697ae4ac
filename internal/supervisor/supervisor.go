// Package supervisor runs a command's work in a worker process of the same
// binary and watches it from outside, so that no input can crash or outlast
// the process that reports the error: the worker's resident memory is read
// from /proc and the worker is killed past its budget or deadline; its
// stdout is kept until it exits and handed back whole or not at all; its
// stderr comes back as short, printable lines; any death (runtime abort,
// signal, budget) becomes one line naming the budget and the setting.
//
// The worker gets its job (arguments and the environment to configure
// from) on file descriptor 3, and may report its deadline on descriptor 4
// (Report). Its process environment is WorkerEnv: no PATH, so no program
// can be found to run, and no proxy settings or credentials of the caller.
package supervisor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WorkerArg is the worker's first argument, never typed by a person.
const WorkerArg = "__cmp-defaults-worker"

// WorkerEnv is the process environment of a worker that reads untrusted
// sources: no PATH (kustomize's git cloner, or anything else, finds no
// program) and HTTP(S) requests sent to a proxy address that refuses
// them (kustomize's URL loader, should a URL pass the preflight; Go sends
// requests to loopback addresses directly, whatever the proxy).
// GOGC=off lets the worker's package initialisation (Helm's, Kubernetes',
// JSON Schema's: about 10 MB of allocations) run without a collection; the
// worker turns the collector back on as its main starts (GCPercent).
var WorkerEnv = []string{"HTTP_PROXY=http://127.0.0.1:1", "HTTPS_PROXY=http://127.0.0.1:1", "NO_PROXY=", "GOGC=off"}

// GCPercent is the collector's setting the worker runs with once started.
const GCPercent = 100

// Job is what the worker runs: the command line and the environment it
// is configured from (the caller's, read once).
type Job struct {
	Args    []string `json:"args"`
	Environ []string `json:"environ"`
}

// Options of one supervised run.
type Options struct {
	Exe  string   // the binary (os.Executable)
	Arg0 string   // argv[0] of the worker
	Env  []string // the worker's process environment (WorkerEnv, or more for cluster commands)
	Job  Job
	// Stdin is handed to the worker as is.
	Stdin *os.File
	// MaxRSS is the worker's resident memory budget in bytes; Setting
	// names it in messages.
	MaxRSS  int64
	Setting string
	// Deadline, when > 0, bounds the run from the start (before the
	// worker reports its own); Grace is added to any deadline, so that
	// the worker's own timeout, which names the step, ends it first.
	Deadline time.Duration
	Grace    time.Duration
	// MaxStdout bounds the result kept in memory.
	MaxStdout int64
}

// Result of a supervised run.
type Result struct {
	Code int
	// Stdout is the worker's output, complete, in chunks (see output).
	Stdout [][]byte
	// Stderr is what the worker printed, as printable lines within the
	// bounds of Lines.
	Stderr []string
	// Stopped, when set, is why the worker did not end normally: one
	// line, to print as the error. Code is then 1.
	Stopped string
}

// Run starts the worker and waits for it. ctx ending (a signal) sends
// the worker SIGTERM, then SIGKILL after Grace.
func Run(ctx context.Context, opt Options) (Result, error) {
	w, err := start(opt)
	if err != nil {
		return Result{}, err
	}
	r := &run{opt: opt, worker: w}
	r.collect()
	err = r.watch(ctx)
	return r.outcome(err)
}

// worker is a started worker process and the pipes it writes.
type worker struct {
	cmd        *exec.Cmd
	stdout     io.ReadCloser
	stderr     io.ReadCloser
	reportPipe *os.File // what the worker writes on its descriptor 4 (Report)
}

// start starts the worker process and hands it its job on descriptor 3.
func start(opt Options) (*worker, error) {
	job, err := json.Marshal(opt.Job)
	if err != nil {
		return nil, err
	}
	jobR, jobW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: opt.Exe, Args: []string{opt.Arg0, WorkerArg}, Env: opt.Env, Stdin: opt.Stdin,
		ExtraFiles: []*os.File{jobR, repW}, SysProcAttr: sysProcAttr()}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	outR, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errR, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		jobR.Close()
		jobW.Close()
		repR.Close()
		repW.Close()
		return nil, fmt.Errorf("starting the worker process: %w", err)
	}
	jobR.Close()
	repW.Close()
	go func() {
		jobW.Write(job)
		jobW.Close()
	}()
	return &worker{cmd: cmd, stdout: outR, stderr: errR, reportPipe: repR}, nil
}

// report is the deadline the worker reported, and the setting that
// raises it.
type report struct {
	d    time.Duration
	name string
}

// run is one supervised run while its worker lives: what it collects from
// the worker, and why the supervisor stopped it.
type run struct {
	opt Options
	*worker

	stop    chan string // why the worker must be stopped (its output is too large)
	out     output
	lines   Lines
	reports chan report
	failed  chan struct{} // closed when the worker says it wrote its own error
	waited  chan error    // the worker's exit, once its stdout and stderr are read

	why      string // why the supervisor killed the worker, or ""
	timedOut bool   // killed for its deadline (first)
	peak     int64  // the most resident memory of both processes seen
}

// collect reads the worker's stdout, stderr and reports in the
// background, and waits for its exit once stdout and stderr are read.
func (r *run) collect() {
	r.stop = make(chan string, 4)
	outDone := make(chan error, 1)
	go func() {
		over, err := r.out.readFrom(r.stdout, r.opt.MaxStdout)
		if over {
			r.stop <- fmt.Sprintf("the output is larger than %d MiB, a quarter of the memory budget; make the source smaller, or raise %s "+
				"(and the sidecar's memory limit) if it is meant to be this large", r.opt.MaxStdout>>20, r.opt.Setting)
			io.Copy(io.Discard, r.stdout)
		}
		outDone <- err
	}()
	errDone := make(chan struct{})
	go func() {
		r.lines.Read(r.stderr)
		close(errDone)
	}()
	// The worker reports its deadline (and the setting that raises it),
	// and that it wrote its own error message: tenant text on stderr can
	// look like one, this descriptor cannot be written by it.
	r.reports = make(chan report, 1)
	r.failed = make(chan struct{})
	go func() {
		sc := bufio.NewScanner(io.LimitReader(r.reportPipe, 64<<10))
		for sc.Scan() {
			d, name, _ := strings.Cut(sc.Text(), "\t")
			if d == failedReport {
				close(r.failed)
				continue
			}
			if n, err := strconv.ParseInt(d, 10, 64); err == nil && n > 0 {
				select {
				case r.reports <- report{time.Duration(n), name}:
				default:
				}
			}
		}
		r.reportPipe.Close()
	}()
	r.waited = make(chan error, 1)
	go func() {
		<-outDone
		<-errDone
		r.waited <- r.cmd.Wait()
	}()
}

// watch waits for the worker to exit and returns the error of its wait.
// It kills the worker past its deadline, its memory budget or its output
// bound, or when ctx ends and the worker does not stop within Grace.
func (r *run) watch(ctx context.Context) error {
	start := time.Now()
	var deadline <-chan time.Time
	deadlineWhy := ""
	if r.opt.Deadline > 0 {
		t := time.NewTimer(r.opt.Deadline + r.opt.Grace)
		defer t.Stop()
		deadline = t.C
		deadlineWhy = fmt.Sprintf("the run did not end within %s and was stopped; make the source smaller or raise %s", r.opt.Deadline, "the timeout")
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	signalled := ctx.Done()
	var termTimer <-chan time.Time
	for {
		select {
		case err := <-r.waited:
			return err
		case rep := <-r.reports:
			t := time.NewTimer(rep.d + r.opt.Grace - time.Since(start))
			defer t.Stop()
			deadline = t.C
			deadlineWhy = fmt.Sprintf("the run did not end within its timeout of %s and was stopped; make the source smaller or raise %s", rep.d, rep.name)
		case <-deadline:
			r.timedOut = r.why == ""
			r.kill(deadlineWhy)
		case why := <-r.stop:
			r.kill(why)
		case <-signalled:
			signalled = nil
			r.cmd.Process.Signal(syscall.SIGTERM)
			t := time.NewTimer(r.opt.Grace)
			defer t.Stop()
			termTimer = t.C
		case <-termTimer:
			r.kill("interrupted, and the run did not end when asked to")
		case <-tick.C:
			r.checkMemory()
		}
	}
}

// kill kills the worker for the first reason given.
func (r *run) kill(why string) {
	if r.why == "" {
		r.why = why
		r.cmd.Process.Kill()
	}
}

// checkMemory kills the worker when both processes together hold more
// than the budget: the worker, and this one with the output it keeps.
func (r *run) checkMemory() {
	worker, self := residentBytes(r.cmd.Process.Pid), residentBytes(selfPID)
	r.peak = max(r.peak, worker+self)
	if r.opt.MaxRSS > 0 && worker+self > r.opt.MaxRSS {
		r.kill(fmt.Sprintf("memory budget exceeded: the run used more than %d MiB (worker %d MiB, supervisor %d MiB) and was stopped; "+
			"make the source smaller, or raise %s (and the sidecar's memory limit) if it is meant to be this large",
			r.opt.MaxRSS>>20, worker>>20, self>>20, r.opt.Setting))
	}
}

// outcome is the result of a worker that exited with the wait error err.
func (r *run) outcome(err error) (Result, error) {
	ps := r.cmd.ProcessState
	res := Result{Code: ps.ExitCode(), Stderr: r.lines.Lines()}
	if r.why != "" {
		if r.timedOut && closed(r.failed) {
			// The worker's own timeout said which step ran out of
			// time; it only was slow to exit (a loaded machine).
			return Result{Code: 1, Stderr: r.lines.Before()}, nil
		}
		return Result{Code: 1, Stderr: r.lines.Before(), Stopped: r.why}, nil
	}
	if !exitedNormally(ps, &r.lines) {
		res.Stderr, res.Code = r.lines.Before(), 1
		res.Stopped = died(ps, r.lines.Crash(), r.opt, r.peak)
		return res, nil
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return Result{}, err
		}
	}
	res.Stdout = r.out.chunks
	return res, nil
}

var selfPID = os.Getpid()

// closed says whether c is closed.
func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// exitedNormally says whether the worker ended on its own with a code it
// gives on purpose (0 ok, 1 error, 2 usage, 3 found). The Go runtime also
// exits 2 when it aborts, after a crash report and a dump of goroutines;
// a line that only looks like the start of one (a quoted file name, a
// values key) is not a crash.
func exitedNormally(ps *os.ProcessState, lines *Lines) bool {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return false
	}
	c := ps.ExitCode()
	if c == 2 && lines.Crash() != "" && lines.Traced() {
		return false
	}
	return c >= 0 && c <= 3
}

// died says why a worker ended without a result of its own.
func died(ps *os.ProcessState, crash string, opt Options, peak int64) string {
	budget := fmt.Sprintf("the memory budget is %d MiB (%s)", opt.MaxRSS>>20, opt.Setting)
	switch {
	case strings.Contains(crash, "out of memory") || strings.Contains(crash, "cannot allocate"):
		return fmt.Sprintf("the run ran out of memory (%s); make the source smaller, or raise %s and the sidecar's memory limit", budget, opt.Setting)
	case strings.Contains(crash, "stack exceeds") || strings.Contains(crash, "stack overflow"):
		return "the run stopped on a call nesting without end (a template or rule that calls itself); break the recursion"
	case crash != "":
		return fmt.Sprintf("internal error, the run crashed: %s; please report it with the input that caused it", crash)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("the worker process was killed by signal %s (peak memory %d MiB; %s); if the sidecar's memory limit killed it, raise that limit or lower %s",
			ws.Signal(), peak>>20, budget, opt.Setting)
	}
	return fmt.Sprintf("the worker process ended with exit code %d and no message", ps.ExitCode())
}

// Report tells the supervisor (descriptor 4) the run's deadline and the
// setting that raises it; without a supervisor it does nothing.
func Report(d time.Duration, setting string) {
	if reportFile == nil {
		return
	}
	fmt.Fprintf(reportFile, "%d\t%s\n", d.Nanoseconds(), Printable(setting))
}

// failedReport is the line on descriptor 4 by which the worker says it
// wrote its own error message.
const failedReport = "failed"

// ReportFailed tells the supervisor that the worker wrote its error
// message (its last line on stderr); without a supervisor it does nothing.
func ReportFailed() {
	if reportFile != nil {
		fmt.Fprintln(reportFile, failedReport)
	}
}

var reportFile *os.File

// ReadJob reads the worker's job from descriptor 3 and makes descriptor 4
// the channel of Report.
func ReadJob() (Job, error) {
	var job Job
	f := os.NewFile(3, "job")
	if f == nil {
		return job, errors.New("no job: this argument is for cmp-defaults' own worker process")
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	f.Close()
	if err != nil {
		return job, fmt.Errorf("reading the job: %w", err)
	}
	if err := json.Unmarshal(data, &job); err != nil {
		return job, fmt.Errorf("no job (%v): this argument is for cmp-defaults' own worker process", err)
	}
	reportFile = os.NewFile(4, "report")
	return job, nil
}
