package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// An error's further lines are indented and control characters escaped:
// text quoted from a repository never starts a line of stderr.
func TestPrintErrorIndents(t *testing.T) {
	var b bytes.Buffer
	printError(&b, errors.New("kustomize build failed: id ConfigMap/a\nError: forged\npanic: boom\x1b[2J\n"))
	want := "Error: kustomize build failed: id ConfigMap/a\n  Error: forged\n  panic: boom\\x1b[2J\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// present prints the first warnings of each kind and a count of the rest,
// then the error, last.
func TestPresentCapsWarnings(t *testing.T) {
	c := &cli{}
	for i := 0; i < 150; i++ {
		c.Warnings.Add(warn.DuplicateKeys, fmt.Sprintf("cm.yaml: document %d: key \"k\" appears more than once", i+1))
	}
	c.Warn("no --operator selected")
	var out, stdout, stderr bytes.Buffer
	code := present(c, errors.New("cm.yaml: document 151: malformed YAML"), &out, &stdout, &stderr)
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if code != supervisor.ExitError || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q", code, stdout.String())
	}
	if len(lines) != warn.PerKind+3 || lines[len(lines)-2] != "Warning: ... and 140 more warnings about duplicate keys" ||
		lines[len(lines)-1] != "Error: cm.yaml: document 151: malformed YAML" {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// A long error is cut: each line, and the lines after the first 6 KiB.
func TestPrintErrorBounded(t *testing.T) {
	var b bytes.Buffer
	long := strings.Repeat("x", 9<<20)
	printError(&b, errors.New(long+"\n"+strings.Repeat("a line of a long error\n", 5000)))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if b.Len() > 8<<10 || !strings.HasSuffix(lines[0], "more bytes cut)") || !strings.HasPrefix(lines[len(lines)-1], "  ... and ") {
		t.Errorf("%d bytes, %d lines: first %.100q, last %q", b.Len(), len(lines), lines[0], lines[len(lines)-1])
	}
}
