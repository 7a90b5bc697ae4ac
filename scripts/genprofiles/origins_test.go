package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A learned release passes when it came from its tag's commit: the proxy's
// Origin for a module version, the named commit for a build from source;
// a version the proxy made from another commit (a tag moved after the
// proxy cached it) fails; one whose .info records no commit is not
// verified and does not fail.
func TestCheckOrigins(t *testing.T) {
	tags := []string{"v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0"}
	trees := map[string]map[string]string{}
	for _, tag := range tags {
		trees[tag] = map[string]string{"VERSION": tag}
	}
	git := testMirror(t, tags, trees)
	m := newMirror(git)
	commit := map[string]string{}
	for _, tag := range tags {
		out, err := m.git("rev-parse", tag+"^{commit}")
		if err != nil {
			t.Fatal(err)
		}
		commit[tag] = strings.TrimSpace(string(out))
	}
	// What the proxy says it made each version of example.com/Proj from
	// (the path escaped as the protocol says: !proj).
	origin := map[string]string{"v1.0.0": commit["v1.0.0"], "v1.1.0": commit["v1.0.0"], "v1.2.0": commit["v1.1.0"], "v1.3.0": ""}
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		v, ok := strings.CutPrefix(r.URL.Path, "/example.com/!proj/@v/")
		v, info := strings.CutSuffix(v, ".info")
		if !ok || !info {
			http.NotFound(w, r)
			return
		}
		if origin[v] == "" {
			fmt.Fprintf(w, `{"Version":%q}`, v)
			return
		}
		fmt.Fprintf(w, `{"Version":%q,"Origin":{"VCS":"git","Hash":%q,"Ref":"refs/tags/%s"}}`, v, origin[v], v)
	}))
	defer proxy.Close()

	learned := t.TempDir()
	modules := map[string]string{
		"v1.0.0": "example.com/Proj@v1.0.0",
		"v1.1.0": "example.com/Proj@v1.1.0",
		"v1.2.0": "example.com/Proj@v1.2.0 built from its source at commit " + commit["v1.2.0"],
		"v1.3.0": "example.com/Proj@v1.3.0",
	}
	for tag, mod := range modules {
		f := filepath.Join(learned, "proj", tag+".yaml")
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		data := fmt.Sprintf("apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: proj\nversion: %s\nlearned: {cluster: test, serverVersion: v1.37.0, module: %q, objects: 1}\nresources: []\n", tag, mod)
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := entry{Name: "proj", Repository: "example.com/Proj", Groups: []string{"example.com"}, Source: "mirror", Mirror: "example+proj",
		Tags: tagFilter{Pattern: `^v[0-9]+\.[0-9]+\.[0-9]+$`, From: "v1.0.0", To: "v1.3.0"}, Paths: []pathSpec{{From: "v1.0.0", Dir: pathList{"crds"}}}}
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	bad, err := checkOrigins(&e, m, learned, proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 1 {
		t.Errorf("%d releases from another commit, want 1 (v1.1.0)", bad)
	}
	if len(asked) != 3 {
		t.Errorf("the proxy was asked %v, want the three module versions (not the build from source)", asked)
	}

	// A build from source that names another commit than its tag's.
	f := filepath.Join(learned, "proj", "v1.2.0.yaml")
	data, _ := os.ReadFile(f)
	if err := os.WriteFile(f, []byte(strings.Replace(string(data), commit["v1.2.0"], commit["v1.0.0"], 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if bad, err := checkOrigins(&e, m, learned, proxy.URL); err != nil || bad != 2 {
		t.Errorf("with v1.2.0 built from v1.0.0's commit: %d, %v; want 2", bad, err)
	}
}
