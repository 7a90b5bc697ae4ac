//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// timeZones are what Go's time package reads for the local zone and for
// Helm's date functions with a named zone: public data, read-only.
var (
	timeZoneDirs  = []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}
	timeZoneFiles = []string{"/etc/localtime"}
)

// Confine confines the calling process for the rest of its life: no
// network, and files read only beneath the paths in read (files or
// directories; those that do not exist are left out, so that the command
// reports them as missing itself). It returns the layers the kernel
// lacks; an error when a layer the kernel has cannot be installed.
func Confine(read []string) (missing []Layer, err error) {
	refuseDials()
	if !seccomp.Supported() {
		missing = append(missing, Seccomp)
	} else if err := seccomp.LoadFilter(socketFilter()); err != nil {
		return nil, fmt.Errorf("installing the seccomp filter: %w", err)
	}
	if abi, err := llsyscall.LandlockGetABIVersion(); err != nil || abi < 1 {
		missing = append(missing, Landlock)
	} else if err := restrictFiles(read); err != nil {
		return nil, fmt.Errorf("installing the Landlock rules: %w", err)
	}
	return missing, nil
}

// errno makes a matching system call fail with e.
func errno(e syscall.Errno) seccomp.Action { return seccomp.ActionErrno | seccomp.Action(e) }

// socketFilter refuses sockets of every address family but AF_UNIX (the
// domain is the first argument of socket and socketpair), io_uring (its
// operations open and connect sockets without those system calls) and
// running programs. Everything else is allowed: the filter is about what
// the worker must never do, not a profile of what it does.
func socketFilter() seccomp.Filter {
	notUnix := []seccomp.Condition{{Argument: 0, Operation: seccomp.NotEqual, Value: syscall.AF_UNIX}}
	return seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync, // every thread of the process, not only this one
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{
				{Action: errno(syscall.EACCES), NamesWithCondtions: []seccomp.NameWithConditions{
					{Name: "socket", Conditions: notUnix}, {Name: "socketpair", Conditions: notUnix}}},
				{Action: errno(syscall.EPERM), Names: []string{"io_uring_setup", "execve", "execveat"}},
			},
		},
	}
}

// restrictFiles lets the process read files and list directories beneath
// read and the time zone database, and nothing else: no writing, creating,
// removing or executing anywhere. With Landlock's network rules (ABI 4 and
// later) TCP connect and bind are refused as well, since no port is
// allowed. Best effort: the rights the kernel's Landlock knows are used.
func restrictFiles(read []string) error {
	var dirs, files []string
	for _, p := range read {
		// Resolved, so that a pipe named by /dev/fd/N (which Landlock does
		// not confine, and cannot take a rule for) is left out.
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // missing: nothing to allow
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			dirs = append(dirs, real)
		} else if err == nil {
			files = append(files, real)
		}
	}
	const readFile, readDir = llsyscall.AccessFSReadFile, llsyscall.AccessFSReadDir
	return landlock.V11.BestEffort().Restrict(
		landlock.PathAccess(readFile|readDir, append(dirs, timeZoneDirs...)...).IgnoreIfMissing(),
		landlock.PathAccess(readFile, append(files, timeZoneFiles...)...).IgnoreIfMissing(),
	)
}
