// Command cmp-defaults-appset generates the Applications of Argo CD
// ApplicationSets offline, with Argo CD's own ApplicationSet code: the List,
// Git (directories and files of a local tree), Clusters (cluster Secrets
// from a file), Matrix and Merge generators, templates, goTemplate and
// templatePatch, as the ApplicationSet controller runs them. Generators
// that need a service (SCM provider, pull request, plugin, cluster
// decision resource, OCI) are reported as not evaluated, never run.
//
// cmp-defaults preview runs it for the ApplicationSets of each revision.
// It is a program of its own so that Argo CD's code (and its SCM clients)
// stays out of the cmp-defaults binary that runs in the repo-server.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	log "github.com/sirupsen/logrus"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Output is what the program prints: one result per ApplicationSet read, in
// order.
type Output struct {
	ApplicationSets []Result `json:"applicationSets"`
}

// Result is one ApplicationSet's Applications, or why they were not
// generated.
type Result struct {
	Namespace    string           `json:"namespace"`
	Name         string           `json:"name"`
	Applications []map[string]any `json:"applications"`
	NotEvaluated string           `json:"notEvaluated,omitempty"`
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cmp-defaults-appset", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cmp-defaults-appset --repo-root DIR [--repo-url URL] [--clusters FILE] [--namespace NS] < applicationsets.yaml")
		fs.PrintDefaults()
	}
	var o options
	fs.StringVar(&o.root, "repo-root", "", "the repository's files, read by the Git generator")
	fs.StringVar(&o.repoURL, "repo-url", "", "the repository's URL: a Git generator of another repoURL is not evaluated (default: any)")
	fs.StringVar(&o.clusters, "clusters", "", "YAML file of Argo CD cluster Secrets, for the Clusters generator (default: the in-cluster cluster only)")
	fs.StringVar(&o.namespace, "namespace", "argocd", "Argo CD's namespace, where its cluster Secrets and AppProjects are")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.root == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	// Argo CD logs each failed generator; its error is in the result.
	log.SetOutput(io.Discard)
	out, err := generate(ctx, o, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(stderr, "Error: "+err.Error())
		return 1
	}
	return 0
}

type options struct {
	root, repoURL, clusters, namespace string
}
