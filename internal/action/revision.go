package action

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A revision's files are bounded: a GitOps repository is configuration,
// and a tree past these is more likely a mistake than a repository.
const (
	maxTreeBytes = 2 << 30
	maxTreeFiles = 200_000
)

// checkout writes the files of the git revision rev of the repository at
// root into dst, as 'git archive' exports them, and returns the commit.
// git comes from the caller's PATH and runs with the caller's environment.
func (env *Env) checkout(ctx context.Context, root, rev, dst string) (commit string, err error) {
	git, err := env.lookGit()
	if err != nil {
		return "", err
	}
	var out, stderr bytes.Buffer
	parse := exec.CommandContext(ctx, git, "-C", root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	parse.Env, parse.Stdout, parse.Stderr = env.Environ, &out, &stderr
	if err := parse.Run(); err != nil {
		return "", Usagef("%s is neither a directory nor a revision of the git repository %s%s", rev, root, gitSays(&stderr))
	}
	commit = strings.TrimSpace(out.String())
	arch := exec.CommandContext(ctx, git, "-C", root, "archive", "--format=tar", commit)
	arch.Env, arch.Stderr = env.Environ, &stderr
	pipe, err := arch.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := arch.Start(); err != nil {
		return "", fmt.Errorf("running git archive: %w", err)
	}
	xerr := untar(pipe, dst)
	if xerr != nil {
		_ = arch.Process.Kill()
	}
	werr := arch.Wait()
	switch {
	case xerr != nil:
		return "", fmt.Errorf("reading %s (%.12s) of %s: %w", rev, commit, root, xerr)
	case werr != nil:
		return "", fmt.Errorf("git archive %s in %s: %v%s", rev, root, werr, gitSays(&stderr))
	}
	return commit, nil
}

// lookGit finds git on the caller's PATH.
func (env *Env) lookGit() (string, error) {
	if p := env.lookPath("git"); p != "" {
		return p, nil
	}
	return "", errors.New("git is not on PATH: preview reads revisions with git; install it, or give --base and --head as directories")
}

// lookPath finds the program name on the caller's PATH (the worker's own
// environment is empty); "" when it is not there.
func (env *Env) lookPath(name string) string {
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if p := filepath.Join(dir, name); isProgram(p) {
			return p
		}
	}
	return ""
}

func isProgram(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func gitSays(stderr *bytes.Buffer) string {
	s := strings.TrimSpace(stderr.String())
	if s == "" {
		return ""
	}
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return " (git: " + strings.ReplaceAll(s, "\n", "; ") + ")"
}

// untar writes a tar stream of files, directories and symbolic links into
// dst, within maxTreeBytes and maxTreeFiles. A link that leaves dst is
// written as it is: every renderer refuses to follow it out of the
// repository root.
func untar(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n >= maxTreeFiles {
			return fmt.Errorf("more than %d files: too large for a preview", maxTreeFiles)
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if name == "." || filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%q: a path outside the tree", h.Name)
		}
		p := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			if total += h.Size; total > maxTreeBytes {
				return fmt.Errorf("more than %d bytes of files: too large for a preview", maxTreeBytes)
			}
			err = writeFile(p, tr, h.Size, os.FileMode(h.Mode)&0o755|0o600)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(h.Linkname, p)
			}
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(p string, r io.Reader, size int64, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copyTree copies the files, directories and symbolic links of src (but
// .git) into dst, within maxTreeBytes and maxTreeFiles.
func copyTree(src, dst string) error {
	var total int64
	n := 0
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if n++; n > maxTreeFiles {
			return fmt.Errorf("%s: more than %d files: too large for a preview", src, maxTreeFiles)
		}
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case !d.Type().IsRegular():
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if total += fi.Size(); total > maxTreeBytes {
			return fmt.Errorf("%s: more than %d bytes of files: too large for a preview", src, maxTreeBytes)
		}
		return writeFile(to, f, fi.Size(), fi.Mode().Perm()|0o600)
	})
}

// writeAtomic writes b to p (in dir, made if need be) by a rename, so
// that nobody reads half of it: a run sharing the chart cache, or an
// Application rendering at the same time as another.
func writeAtomic(dir, p string, b []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}
