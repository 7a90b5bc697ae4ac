package controller

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is the Applications' source: a Git repository on disk that the
// repo-server clones and fetches through its file:// URL, like any remote.
type gitRepo struct {
	dir string
	url string
}

func newGitRepo(dir string) (*gitRepo, error) {
	r := &gitRepo{dir: dir, url: "file://" + dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := r.git("init", "--initial-branch=main"); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("cmp-defaults controller e2e\n"), 0o644); err != nil {
		return nil, err
	}
	if _, err := r.git("add", "-A"); err != nil {
		return nil, err
	}
	_, err := r.git("commit", "-m", "init")
	return r, err
}

func (r *gitRepo) git(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{
		"-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "-c", "commit.gpgsign=false",
	}, args...)...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// commit writes files (path relative to the repository: content; "" removes
// the file) and commits them; it returns the new revision.
func (r *gitRepo) commit(t testing.TB, msg string, files map[string]string) string {
	t.Helper()
	for p, content := range files {
		f := filepath.Join(r.dir, filepath.FromSlash(p))
		if content == "" {
			if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.git("add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.git("commit", "--allow-empty", "-m", msg); err != nil {
		t.Fatal(err)
	}
	rev, err := r.git("rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// copyTree reads every file under dir (a directory of this repository) as
// path relative to dir: content.
func copyTree(t testing.TB, dir string, edit func(string) string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		s := string(data)
		if edit != nil {
			s = edit(s)
		}
		out[filepath.ToSlash(rel)] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// under prefixes every path of files with dir.
func under(dir string, files map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		out[dir+"/"+p] = c
	}
	return out
}
