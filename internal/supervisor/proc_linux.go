package supervisor

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Supported says whether this system can supervise a worker.
const Supported = true

var pageSize = int64(os.Getpagesize())

// residentBytes is the resident set of process pid (/proc/PID/statm), 0
// when it cannot be read.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return n * pageSize
}

// TreeResident is the resident set of process pid and of every process
// below it: what a supervised run holds, parent and worker together.
func TreeResident(pid int) int64 {
	sum := residentBytes(pid)
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range bytes.Fields(b) {
			if child, err := strconv.Atoi(string(f)); err == nil {
				sum += TreeResident(child)
			}
		}
	}
	return sum
}

// sysProcAttr makes the worker die with its supervisor (Argo CD's
// cmp-server kills only the process it started).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// RunMeasured runs cmd to its end, reading the resident set of its
// process tree every 2 ms, and returns the peak of that sum: the honest
// size of a supervised run (the kernel's peak RSS is one process's).
func RunMeasured(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	peak := make(chan int64)
	done := make(chan struct{})
	go func() {
		var p int64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				peak <- p
				return
			case <-tick.C:
				p = max(p, TreeResident(cmd.Process.Pid))
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	return <-peak, err
}
