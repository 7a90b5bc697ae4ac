package main

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/cmp-defaults/cmp-defaults/internal/chartrepotest"
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
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"chartrepo": chartRepo},
	})
}

// chartRepo is the scripts' Helm repository on a loopback address:
// 'chartrepo start' serves podinfo 1.0.0 and 1.1.0 (packaged by Helm) and
// sets $CHARTS to its URL; 'chartrepo archives N' checks that N archives
// were asked for.
func chartRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: chartrepo start | chartrepo archives N")
	}
	switch args[0] {
	case "start":
		var charts []*chart.Chart
		for _, v := range []string{"1.0.0", "1.1.0"} {
			charts = append(charts, chartrepotest.Chart("podinfo", v, "greeting: hello\n", map[string]string{
				"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}'}\ndata: {greeting: '{{ .Values.greeting }}', version: '{{ .Chart.Version }}'}\n"}))
		}
		s, err := chartrepotest.New(charts...)
		ts.Check(err)
		ts.Defer(s.Close)
		repos.Store(ts, s)
		ts.Setenv("CHARTS", s.URL)
	case "archives":
		s, ok := repos.Load(ts)
		if !ok || len(args) != 2 {
			ts.Fatalf("usage: chartrepo start, then chartrepo archives N")
		}
		if got := strconv.FormatInt(s.(*chartrepotest.Server).Archives.Load(), 10); got != args[1] {
			ts.Fatalf("%s archive requests, want %s", got, args[1])
		}
	default:
		ts.Fatalf("usage: chartrepo start | chartrepo archives N")
	}
}

// repos are the scripts' chart repositories, by script.
var repos sync.Map

// run executes the CLI in this process, configured by the test's
// environment.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, args, os.Environ(), stdin, stdout, stderr, inWorker{})
}
