// Package sandbox confines the worker process that reads a tenant's
// source, so that the kernel enforces what the code promises whatever
// library bug a source finds: no network, and nothing read outside the
// paths the command was given. Three layers, each on its own:
//
//   - seccomp: socket(2) and socketpair(2) for any address family but
//     AF_UNIX fail with EACCES; io_uring, which could open sockets without
//     socket(2), and execve(2) fail too. Installed with no_new_privs on
//     every thread of the process.
//   - Landlock: files and directories can be read only beneath the paths
//     given (the repository root, the profile directories, the input
//     files) and the time zone database; nothing can be written, created,
//     removed or executed anywhere; TCP connect and bind are refused where
//     the kernel's Landlock has network rules.
//   - in the process: Go's default HTTP transport and DNS resolver refuse
//     every dial, so a platform without seccomp still sends nothing.
//
// Confine installs them once, before the command reads anything; they
// last as long as the process. Where the kernel lacks a layer, Confine
// says which; the caller decides whether that is an error.
package sandbox

import (
	"context"
	"errors"
	"net"
	"net/http"
)

// Layer is one confinement layer the kernel provides.
type Layer string

// The kernel's layers.
const (
	Seccomp  Layer = "seccomp"
	Landlock Layer = "Landlock"
)

// Stops says what a layer stops, for messages.
func (l Layer) Stops() string {
	switch l {
	case Seccomp:
		return "network sockets"
	case Landlock:
		return "reading files outside the repository and profile directories"
	}
	return string(l)
}

// ErrNetwork is what a dial in a confined process returns.
var ErrNetwork = errors.New("network access is refused in the cmp-defaults worker's sandbox")

func refuseDial(context.Context, string, string) (net.Conn, error) { return nil, ErrNetwork }

// refuseDials makes Go's default HTTP transport and DNS resolver refuse
// every dial (kustomize's URL loader uses a bare http.Client). This is
// the worker's process setup, done once before the job reads anything and
// never undone, not a switch at run time.
func refuseDials() {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.DialContext = refuseDial
		t.DialTLSContext = refuseDial
	}
	net.DefaultResolver.PreferGo = true
	net.DefaultResolver.Dial = refuseDial
}
