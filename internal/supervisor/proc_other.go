//go:build !linux

package supervisor

import "syscall"

// Supported says whether this system can supervise a worker: the resident
// memory is read from Linux's /proc.
const Supported = false

func residentBytes(int) int64 { return 0 }

func sysProcAttr() *syscall.SysProcAttr { return nil }
