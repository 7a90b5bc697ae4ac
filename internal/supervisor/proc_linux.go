package supervisor

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
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

// sysProcAttr makes the worker die with its supervisor (Argo CD's
// cmp-server kills only the process it started).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
