package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
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
		if code := run(args, strings.NewReader(""), &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
		if !strings.Contains(errb.String(), "Usage:") || !strings.Contains(errb.String(), "'-' to read stdin") || out.Len() > 0 {
			t.Errorf("%v: stdout %q, stderr %q", args, out.String(), errb.String())
		}
		var out2, errb2 bytes.Buffer
		in := strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
		if code := run(append(args, "-"), in, &out2, &errb2); code != exitOK {
			t.Errorf("%v -: exit %d (stderr %q)", args, code, errb2.String())
		}
	}
}
