package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// compiledForms writes (or with check compares) the compiled form of every
// YAML profile and index under the profiles directory, for every operator
// there, whether or not its sources were on this machine: the compiled
// form depends on the YAML alone. It returns how many files differ.
func compiledForms(profilesDir string, check bool) (int, error) {
	dirs, err := os.ReadDir(profilesDir)
	if err != nil {
		return 0, err
	}
	bad, n := 0, 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(profilesDir, d.Name())
		want, err := compileDir(dir)
		if err != nil {
			return 0, err
		}
		if len(want) == 0 {
			continue
		}
		n += len(want)
		existing, _ := filepath.Glob(filepath.Join(dir, "*"+operators.CompiledExt))
		for _, e := range existing {
			if _, ok := want[filepath.Base(e)]; ok {
				continue
			}
			if check {
				fmt.Fprintf(os.Stderr, "compiled form of no YAML file (remove it): %s\n", e)
				bad++
			} else if err := os.Remove(e); err != nil {
				return 0, err
			}
		}
		for _, name := range sortedNames(want) {
			file := filepath.Join(dir, name)
			if check {
				got, err := os.ReadFile(file)
				if err != nil || !bytes.Equal(got, want[name]) {
					fmt.Fprintf(os.Stderr, "stale or missing compiled form: %s\n", file)
					bad++
				}
				continue
			}
			if err := os.WriteFile(file, want[name], 0o644); err != nil {
				return 0, err
			}
		}
	}
	if !check {
		fmt.Printf("compiled: %d files written under %s\n", n, profilesDir)
	}
	return bad, nil
}

// compileDir compiles every YAML file of one operator's directory:
// <version>.bin for <version>.yaml, index.bin for index.yaml.
func compileDir(dir string) (map[string][]byte, error) {
	yamls, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, y := range yamls {
		data, err := os.ReadFile(y)
		if err != nil {
			return nil, err
		}
		// Messages name the file as the binary does: profiles/<op>/<file>.
		b, err := operators.CompileFile(filepath.ToSlash(y), data)
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(filepath.Base(y), ".yaml")+operators.CompiledExt] = b
	}
	return out, nil
}

func sortedNames(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
