package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
)

// With no argument and a terminal on stdin, fill and explain print their
// usage and exit 2 instead of waiting silently; '-' still reads stdin.
func TestNoInputOnTerminal(t *testing.T) {
	was := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	defer func() { stdinIsTerminal = was }()
	for _, args := range [][]string{
		{"fill", "--operator", "external-secrets@2.5.0"},
		{"explain", "--operator", "external-secrets@2.5.0"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != supervisor.ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, supervisor.ExitUsage, errb.String())
		}
		if !strings.Contains(errb.String(), "Usage:") || !strings.Contains(errb.String(), "'-' to read stdin") || out.Len() > 0 {
			t.Errorf("%v: stdout %q, stderr %q", args, out.String(), errb.String())
		}
		var out2, errb2 bytes.Buffer
		in := strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
		if code := run(context.Background(), append(args, "-"), in, &out2, &errb2); code != supervisor.ExitOK {
			t.Errorf("%v -: exit %d (stderr %q)", args, code, errb2.String())
		}
	}
}

// A cancelled run (SIGINT, SIGTERM) stops the render and prints nothing.
func TestCancelledRunPrintsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"render", "--operator", "external-secrets@2.5.0", "../../examples/helm"}, strings.NewReader(""), &out, &errb)
	if code != supervisor.ExitError || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and no output", code, out.String(), errb.String(), supervisor.ExitError)
	}
	if !strings.Contains(errb.String(), "interrupted while ") {
		t.Errorf("stderr %q does not say the run was stopped", errb.String())
	}
}

// Usage mistakes are told apart by their type: flag, argument and unknown
// command errors exit 2 and name the --help to read.
func TestUsageErrorsByType(t *testing.T) {
	for _, tc := range []struct {
		args []string
		hint string
	}{
		{[]string{"bogus"}, "Run 'cmp-defaults --help' for usage."},
		{[]string{"version", "extra"}, "Run 'cmp-defaults version --help' for usage."},
		{[]string{"fill", "--no-such-flag"}, "Run 'cmp-defaults fill --help' for usage."},
		{[]string{"explain", "-o", "xml"}, "Run 'cmp-defaults explain --help' for usage."},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
		if code != supervisor.ExitUsage || !strings.Contains(errb.String(), tc.hint) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errb.String(), supervisor.ExitUsage, tc.hint)
		}
	}
}
