package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The README promises --help with examples for every command.
func TestEveryCommandHasExamples(t *testing.T) {
	c := &cli{}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.Hidden || cmd.Name() == "help" || strings.HasPrefix(cmd.Name(), "__") || cmd.Parent() != nil && cmd.Parent().Name() == "completion" {
			return
		}
		if cmd.Example == "" {
			t.Errorf("%s has no examples in --help", cmd.CommandPath())
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(c.root())
}

// Help examples run on files the repository ships: a path under examples/
// exists, and no example names an input it does not ship as if it did.
func TestExamplesNameShippedFiles(t *testing.T) {
	c := &cli{}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, tok := range strings.Fields(cmd.Example) {
			switch {
			case strings.HasPrefix(tok, "examples/"):
				if _, err := os.Stat(filepath.Join("../..", tok)); err != nil {
					t.Errorf("%s --help: example names %s, which the repository does not ship", cmd.CommandPath(), tok)
				}
			case tok == "app.yaml" || tok == "certificate.yaml" || tok == "externalsecret.yaml":
				t.Errorf("%s --help: example names %s, which the repository does not ship (use examples/...)", cmd.CommandPath(), tok)
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(c.root())
}

// Help says what the commands do: directory arguments take the Helm flags,
// and the memory budget is of resident memory, as the README says.
func TestHelpMatchesTheTool(t *testing.T) {
	root := (&cli{}).root()
	for _, path := range [][]string{{"explain"}, {"audit"}, {"fill"}, {"diff-releases"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		help := cmd.Long + cmd.Flags().FlagUsages()
		if strings.Contains(help, "default settings") {
			t.Errorf("%s --help says directories render with default settings, but it takes -f/--set*/-n", cmd.CommandPath())
		}
	}
	gen, _, _ := root.Find([]string{"generate"})
	if !strings.Contains(gen.Long, "CMP_DEFAULTS_MAX_MEMORY_BYTES (768 MiB of resident memory)") {
		t.Errorf("generate --help does not call the memory budget resident memory:\n%s", gen.Long)
	}
}
