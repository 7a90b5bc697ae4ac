package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/git"
)

// localRepo serves the Git generator from a local tree, as the repo-server
// serves it from a checkout: every directory but hidden ones, and the files
// 'git ls-files -- PATTERN' lists.
type localRepo struct {
	root string
	url  string // "": any repoURL is this repository
}

func (r localRepo) check(repoURL string) error {
	if r.url != "" && !git.SameURL(repoURL, r.url) {
		return fmt.Errorf("repoURL %s is not this repository (%s): its files are not read offline", repoURL, r.url)
	}
	return nil
}

func (r localRepo) GetDirectories(_ context.Context, repoURL, _, _ string, _ bool, _ *v1alpha1.SourceIntegrity) ([]string, error) {
	if err := r.check(repoURL); err != nil {
		return nil, err
	}
	var out []string
	err := filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(r.root, p)
		if err != nil || rel == "." {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

func (r localRepo) GetFiles(_ context.Context, repoURL, _, _, pattern string, _ bool, _ *v1alpha1.SourceIntegrity) (map[string][]byte, error) {
	if err := r.check(repoURL); err != nil {
		return nil, err
	}
	match, err := pathspec(pattern)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	var total int64
	err = filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !match(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if total += int64(len(b)); total > maxInput {
			return fmt.Errorf("files matching %q: more than %d bytes", pattern, maxInput)
		}
		out[rel] = b
		return err
	})
	return out, err
}

func (r localRepo) GetOciFiles(context.Context, string, string, string, string, bool) (map[string][]byte, error) {
	return nil, fmt.Errorf("OCI artifacts are not read offline")
}

func (r localRepo) GetOciDirectories(context.Context, string, string, string, bool) ([]string, error) {
	return nil, fmt.Errorf("OCI artifacts are not read offline")
}

// pathspec matches a path as git's default pathspec does: a pattern
// without wildcards names a file or a directory and everything beneath it;
// with wildcards it is an fnmatch pattern whose '*' and '?' also match '/'.
func pathspec(pattern string) (func(string) bool, error) {
	pattern = strings.TrimPrefix(pattern, "./")
	if !strings.ContainsAny(pattern, "*?[") {
		return func(p string) bool {
			return p == pattern || strings.HasPrefix(p, strings.TrimSuffix(pattern, "/")+"/")
		}, nil
	}
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		case '[':
			j := strings.IndexByte(pattern[i+1:], ']')
			if j < 0 {
				re.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			re.WriteString("[" + class + "]")
			i += j + 1
		case '\\':
			if i+1 < len(pattern) {
				i++
				re.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			}
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", pattern, err)
	}
	return rx.MatchString, nil
}
