package main

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the CLI as "cmp-defaults".
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cmp-defaults": main, // through the supervisor and its worker, as the binary runs
	})
}

// TestScripts runs every testdata/script/*.txtar against the CLI. Refresh the
// expected output of a script with: go test ./cmd/cmp-defaults -run TestScripts -update
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			root, err := os.Getwd()
			if err != nil {
				return err
			}
			// Scripts reach the repository's examples and profiles through $REPO.
			env.Setenv("REPO", root+"/../..")
			env.Setenv("CMP_DEFAULTS_PROFILES_DIR", "")
			return nil
		},
	})
}

// run executes the CLI in this process, configured by the test's
// environment.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, args, os.Environ(), stdin, stdout, stderr, inWorker{})
}
