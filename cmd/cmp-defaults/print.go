package main

import (
	"fmt"
	"io"
)

// printable is a command's typed report, written as text or JSON.
type printable interface {
	WriteText(w io.Writer) error
	WriteJSON(w io.Writer) error
}

// print writes rep to stdout in the format of -o.
func (c *cli) print(o *outputFormat, rep printable) error {
	if o.json() {
		return rep.WriteJSON(c.out)
	}
	return rep.WriteText(c.out)
}

// warn prints each warning on stderr, one line each.
func (c *cli) warn(ws ...string) {
	for _, w := range ws {
		fmt.Fprintln(c.errw, "Warning: "+w)
	}
}
