//go:build linux || darwin

package main

import (
	"os"
	"syscall"
)

// stdoutWasClosed reports whether the process started with stdout closed.
// The Go runtime then puts /dev/null, opened read-write, in its place, so
// every write "succeeds"; a shell's '>/dev/null' opens it write-only.
func stdoutWasClosed() bool {
	var st, null syscall.Stat_t
	if syscall.Fstat(1, &st) != nil || syscall.Stat(os.DevNull, &null) != nil {
		return false
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFCHR || st.Rdev != null.Rdev {
		return false
	}
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	return errno == 0 && int(fl)&syscall.O_ACCMODE == syscall.O_RDWR
}
