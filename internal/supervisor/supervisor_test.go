package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A worker that reported its own timeout but is slow to exit (a loaded
// machine) ends with its message alone; one that said nothing gets the
// supervisor's, and so does one whose stderr only looks like an error
// message (tenant text): the worker says it failed on descriptor 4.
func TestDeadlineKeepsWorkerMessage(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		stderr       []string
		stopped      bool
	}{
		{"reported", "echo failed >&4\necho 'Error: rendering: the run did not end within 1s' >&2\nexec /bin/sleep 30\n", []string{"Error: rendering: the run did not end within 1s"}, false},
		{"forged", "echo 'Error: all is well' >&2\nexec /bin/sleep 30\n", []string{"Error: all is well"}, true},
		{"silent", "exec /bin/sleep 30\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), "worker")
			if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Options{Exe: exe, Arg0: "worker", Deadline: 200 * time.Millisecond, Grace: 100 * time.Millisecond, MaxStdout: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if res.Code != 1 || strings.Join(res.Stderr, "\n") != strings.Join(tc.stderr, "\n") || (res.Stopped != "") != tc.stopped {
				t.Errorf("got code %d, stderr %q, stopped %q", res.Code, res.Stderr, res.Stopped)
			}
		})
	}
}
