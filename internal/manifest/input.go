package manifest

// What a command is given: files and stdin decoded as YAML/JSON streams,
// directories handed to the caller's render, everything bounded in bytes.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cmp-defaults/cmp-defaults/internal/quote"
)

// ErrDirectory: a directory where a file is wanted (a usage mistake).
var ErrDirectory = errors.New("is a directory; pass its files")

// Reader reads a command's arguments: FILEs, '-' (stdin, also for no
// argument) and directories, which Dir renders.
type Reader struct {
	Stdin    io.Reader
	MaxBytes int64 // per file, and for stdin
	Limits   Limits
	Dir      func(dir string) ([]Object, error)
}

// All decodes every input.
func (r *Reader) All(args []string) ([]Object, error) {
	var all []Object
	err := r.Each(args, func(o Object) error {
		all = append(all, o)
		return nil
	})
	return all, err
}

// Each calls fn for every object of the inputs, one document at a time,
// so that a caller can stream instead of holding every object. Limits
// bound the files and stdin together (Dir bounds each directory).
func (r *Reader) Each(args []string, fn func(Object) error) error {
	if len(args) == 0 {
		args = []string{"-"}
	}
	lim := r.Limits.Counted()
	for _, a := range args {
		if fi, statErr := os.Stat(a); a != "-" && statErr == nil && fi.IsDir() {
			objs, err := r.Dir(a)
			if err != nil {
				return err
			}
			for _, o := range objs {
				if err := fn(o); err != nil {
					return err
				}
			}
			continue
		}
		if a == "-" {
			if err := EachReader("stdin", r.Stdin, r.MaxBytes, lim, fn); err != nil {
				return err
			}
			continue
		}
		f, _, err := Open(a, r.MaxBytes)
		if err != nil {
			return err
		}
		err = EachReader(a, f, r.MaxBytes, lim, fn)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Open opens an input file, refusing directories and files over maxBytes
// before reading anything.
func Open(name string, maxBytes int64) (*os.File, int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", quote.Name(name), PathErr(err))
	}
	if fi.IsDir() {
		return nil, 0, fmt.Errorf("%s %w", quote.Name(name), ErrDirectory)
	}
	if fi.Size() > maxBytes {
		return nil, 0, TooLarge(name, maxBytes)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", quote.Name(name), PathErr(err))
	}
	return f, fi.Size(), nil
}

// ReadFile reads a whole input file of at most maxBytes, sizing the buffer
// once (io.ReadAll's doubling would leave up to twice the file behind).
func ReadFile(name string, maxBytes int64) ([]byte, error) {
	f, size, err := Open(name, maxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, size+512))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %v", quote.Name(name), err)
	}
	if int64(buf.Len()) > maxBytes { // grew since the stat
		return nil, TooLarge(name, maxBytes)
	}
	return buf.Bytes(), nil
}

// PathErr drops the operation and path of an *os.PathError: messages name
// the file themselves.
func PathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Size is the total size of the named regular files (0 for stdin).
func Size(args []string) int64 {
	var n int64
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}
