package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentRenders runs the pipeline for different apps at once in one
// process, as a busy CMP sidecar does across processes: the bytes must equal
// the serial runs. Run it with -race (scripts/test.sh does) to catch shared
// mutable state in the engine, the profile store or the renderers.
func TestConcurrentRenders(t *testing.T) {
	apps := [][]string{
		{"render", "--operator", "external-secrets@2.5.0", "../../examples/plain"},
		{"render", "--operator", "external-secrets@2.5.0", "--namespace", "datadog", "../../examples/helm"},
		{"render", "--operator", "external-secrets@2.5.0", "../../examples/kustomize/overlays/prod"},
		{"render", "--operator", "external-secrets@2.7.0", "../../examples/helm", "-f", "values-prod.yaml"},
		{"render", "--operator", "cert-manager@1.19.0", "--kube-version", "1.34.0", "../../internal/render/testdata/repo/charts/app"},
		{"render", "--operator", "external-secrets@0.9.0", "../../examples/plain"},
		{"fill", "--operator", "external-secrets@2.5.0,cert-manager@1.19.0", "../../examples/plain/externalsecret.yaml"},
		{"render", "../../internal/render/testdata/repo/kustomize/overlays/prod"},
		// preview renders the Applications of each level of apps of apps at once.
		{"preview", "--base", previewTree, "--head", previewTree, "--operator", "cloudnative-pg@1.27.0", "-o", "json"},
	}
	serial := make([]string, len(apps))
	for i, a := range apps {
		serial[i] = runOK(t, a)
	}
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		got := make([]string, len(apps))
		errs := make([]error, len(apps))
		for i, a := range apps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out, errb bytes.Buffer
				if code := run(context.Background(), a, nil, &out, &errb); code != 0 {
					errs[i] = fmt.Errorf("%v: exit %d: %s", a, code, errb.String())
				}
				got[i] = out.String()
			}()
		}
		wg.Wait()
		for i := range apps {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if got[i] != serial[i] {
				t.Fatalf("round %d: %v gave other bytes in parallel than serially", round, apps[i])
			}
		}
	}
}

const previewTree = "../../internal/action/testdata/preview/base"

func runOK(t *testing.T, args []string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	if out.Len() == 0 {
		t.Fatalf("%v: empty output", args)
	}
	return out.String()
}
