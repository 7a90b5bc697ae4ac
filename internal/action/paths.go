package action

import (
	"path/filepath"
	"regexp"
	"strings"
)

// absPath is an absolute path in a message: after a space, quote or
// parenthesis (not a URL's "//"), up to a space or punctuation.
var absPath = regexp.MustCompile(`(^|[\s"'(])(/[^\s"'():;,]*)`)

// UserPaths names the files and directories in a command-line error
// relative to the working directory wd, as a user who typed relative paths
// named them; wd itself and paths outside it stay absolute. When args hold an absolute
// path the error is left as it is: that user reads absolute paths.
func UserPaths(err error, wd string, args []string) error {
	if err == nil || wd == "" || filepath.Dir(wd) == wd {
		return err
	}
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); (ok && filepath.IsAbs(v)) || filepath.IsAbs(a) {
			return err
		}
	}
	bases := []string{filepath.Clean(wd)}
	if real, rerr := filepath.EvalSymlinks(wd); rerr == nil && real != bases[0] {
		bases = append(bases, real)
	}
	msg := absPath.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := absPath.FindStringSubmatch(m)
		p := strings.TrimRight(sub[2], ".")
		for _, b := range bases {
			if r, rerr := filepath.Rel(b, p); rerr == nil && r != "." && r != ".." && !strings.HasPrefix(r, "../") {
				return sub[1] + filepath.ToSlash(r) + strings.TrimPrefix(sub[2], p)
			}
		}
		return m
	})
	if msg == err.Error() {
		return err
	}
	return shortened{msg, err}
}

// shortened is an error with a message for the user; errors.Is and As see
// the error it came from.
type shortened struct {
	msg string
	err error
}

func (e shortened) Error() string { return e.msg }
func (e shortened) Unwrap() error { return e.err }
