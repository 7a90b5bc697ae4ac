package main

import (
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
