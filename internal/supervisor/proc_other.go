//go:build !linux

package supervisor

import (
	"os/exec"
	"syscall"
)

// Supported says whether this system can supervise a worker: the resident
// memory is read from Linux's /proc.
const Supported = false

func residentBytes(int) int64 { return 0 }

func sysProcAttr() *syscall.SysProcAttr { return nil }

// TreeResident is 0: there is no /proc to read.
func TreeResident(int) int64 { return 0 }

// RunMeasured runs cmd; it cannot measure it here.
func RunMeasured(cmd *exec.Cmd) (int64, error) { return 0, cmd.Run() }
