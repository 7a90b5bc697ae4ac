package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// generated runs the program on testdata/appsets.yaml and returns its
// output, by ApplicationSet name.
func generated(t *testing.T, args ...string) map[string]Result {
	t.Helper()
	in, err := os.Open(filepath.Join("testdata", "appsets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, stderr bytes.Buffer
	args = append([]string{"--repo-root", filepath.Join("testdata", "repo"), "--repo-url", "https://github.com/example/gitops"}, args...)
	if code := run(context.Background(), args, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var o Output
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	res := map[string]Result{}
	for _, r := range o.ApplicationSets {
		res[r.Name] = r
	}
	return res
}

func names(r Result) []string {
	var out []string
	for _, a := range r.Applications {
		md, _ := a["metadata"].(map[string]any)
		n, _ := md["name"].(string)
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func field(app map[string]any, path ...string) any {
	var v any = app
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

// Argo CD's generators, run offline: List, Git directories (with an
// exclusion and goTemplate), Git files in a Matrix with Clusters from a file
// and a templatePatch; generators that need a service, and another
// repository's files, are not evaluated, with the reason.
func TestGenerate(t *testing.T) {
	res := generated(t, "--clusters", filepath.Join("testdata", "clusters.yaml"))
	for name, want := range map[string][]string{
		"list":   {"prod-guestbook", "staging-guestbook"},
		"dirs":   {"guestbook", "shop"},
		"matrix": {"shop-prod-prod", "shop-staging-staging"},
	} {
		r := res[name]
		if r.NotEvaluated != "" || !slices.Equal(names(r), want) {
			t.Errorf("%s: got %q (%s), want %q", name, names(r), r.NotEvaluated, want)
		}
	}
	for _, a := range res["dirs"].Applications {
		if ns := field(a, "spec", "destination", "namespace"); ns != strings.ToUpper(field(a, "metadata", "name").(string)) {
			t.Errorf("dirs: goTemplate's upper not applied: namespace %v", ns)
		}
		if field(a, "metadata", "namespace") != "argocd" || field(a, "kind") != "Application" {
			t.Errorf("dirs: generated %v", a["metadata"])
		}
	}
	for _, a := range res["matrix"].Applications {
		params, _ := field(a, "spec", "source", "helm", "parameters").([]any)
		want := map[string]string{"shop-prod-prod": "3", "shop-staging-staging": "1"}[field(a, "metadata", "name").(string)]
		if len(params) != 1 || field(params[0].(map[string]any), "value") != want {
			t.Errorf("matrix: templatePatch gives %v, want replicas %s", params, want)
		}
		if s := field(a, "spec", "destination", "server"); !strings.HasSuffix(s.(string), ".example.com") {
			t.Errorf("matrix: server %v is not the cluster Secret's", s)
		}
	}
	if why := res["previews"].NotEvaluated; !strings.Contains(why, "pull request generator") {
		t.Errorf("previews: %q", why)
	}
	if why := res["elsewhere"].NotEvaluated; !strings.Contains(why, "is not this repository") {
		t.Errorf("elsewhere: %q", why)
	}
}

// Without a clusters file only the in-cluster cluster exists, and a
// selector on labels matches no cluster.
func TestGenerateWithoutClusters(t *testing.T) {
	if got := names(generated(t)["matrix"]); len(got) != 0 {
		t.Errorf("matrix without clusters: %q", got)
	}
}

// git's default pathspec: '*' crosses directories, a plain path names a
// directory's files.
func TestPathspec(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"config/*.json", "config/prod/config.json", true},
		{"config/**/config.*", "config/prod/config.json", true},
		{"config/*.json", "other/config.json", false},
		{"config", "config/prod/config.json", true},
		{"config/prod/config.json", "config/prod/config.json", true},
		{"conf", "config/prod/config.json", false},
		{"config/[ps]*/config.json", "config/staging/config.json", true},
		{"config/[!s]*/config.json", "config/staging/config.json", false},
	} {
		m, err := pathspec(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := m(tc.path); got != tc.want {
			t.Errorf("%q matches %q: %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}
