package main

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputFormat is the value of -o/--output. It is checked once, when the
// flag is parsed, against the formats its command writes.
type outputFormat struct {
	name    string
	allowed []string
}

// addOutput adds -o/--output to cmd; the first allowed format is the default.
func addOutput(cmd *cobra.Command, o *outputFormat, what string, allowed ...string) {
	o.name, o.allowed = allowed[0], allowed
	cmd.Flags().VarP(o, "output", "o", what+": "+strings.Join(allowed, " or "))
}

func (o *outputFormat) String() string { return o.name }
func (o *outputFormat) Type() string   { return "string" }

func (o *outputFormat) Set(s string) error {
	if !slices.Contains(o.allowed, s) {
		return usagef("--output %q: use %s", s, strings.Join(o.allowed, " or "))
	}
	o.name = s
	return nil
}

// flagError makes a flag error a usage error; a value refused by its own
// check (as -o) speaks for itself without pflag's prefix.
func flagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	var ue usageError
	if errors.As(err, &iv) && errors.As(iv.Unwrap(), &ue) {
		return ue
	}
	return usageError{err}
}

func (o *outputFormat) json() bool { return o.name == "json" }
