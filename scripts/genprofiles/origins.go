package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/mod/module"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// builtFromSource is how a learned file says its webhook was built from the
// release's source at a commit instead of from the module proxy's zip.
var builtFromSource = regexp.MustCompile(`built from its source at commit ([0-9a-f]{40})`)

// checkOrigins compares, for each release of the entry with learned
// mutations, the commit they were learned from with the commit of the
// release's tag in the mirror: for a module version, the commit the proxy
// says it made the version from (its .info's Origin); for a build from
// source, the commit the learned file names. A tag moved after the proxy
// cached the version makes "learned from MODULE@VERSION" another commit than
// the release. It prints one line per release and returns how many differ.
func checkOrigins(e *entry, m *mirror, learnedDir, proxy string) (int, error) {
	rels, err := m.releases(&e.Tags)
	if err != nil {
		return 0, err
	}
	bad := 0
	for _, r := range rels {
		file := filepath.Join(learnedDir, e.Name, r.tag+".yaml")
		data, err := os.ReadFile(file)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return bad, err
		}
		lp, err := operators.ParseProfile(file, data)
		if err != nil {
			return bad, err
		}
		if lp.Learned == nil || lp.Learned.Module == "" {
			return bad, fmt.Errorf("%s: no learned.module", file)
		}
		out, err := m.git("rev-parse", r.ref+"^{commit}")
		if err != nil {
			return bad, err
		}
		tagCommit := strings.TrimSpace(string(out))
		mod, _, _ := strings.Cut(lp.Learned.Module, " ")
		from, how := "", ""
		if sm := builtFromSource.FindStringSubmatch(lp.Learned.Module); sm != nil {
			from, how = sm[1], "its source"
		} else {
			path, version, ok := strings.Cut(mod, "@")
			if !ok {
				return bad, fmt.Errorf("%s: learned.module %q: want MODULE@VERSION", file, lp.Learned.Module)
			}
			if from, err = proxyOrigin(proxy, path, version); err != nil {
				return bad, fmt.Errorf("%s: %v", file, err)
			}
			how = "the module proxy's " + mod
			if from == "" {
				fmt.Printf("%s %s: not verified: the module proxy records no commit for %s\n", e.Name, r.tag, mod)
				continue
			}
		}
		if from != tagCommit {
			bad++
			fmt.Printf("%s %s: learned from %s, commit %s, but the tag %s is commit %s: learn it again from the tag's source (scripts/webhook-sources.sh)\n",
				e.Name, r.tag, how, from, r.ref, tagCommit)
			continue
		}
		fmt.Printf("%s %s: learned from %s, the tag's commit %s\n", e.Name, r.tag, how, tagCommit[:12])
	}
	return bad, nil
}

// proxyOrigin is the commit a Go module proxy says it made path@version
// from ("" when it records none).
func proxyOrigin(proxy, path, version string) (string, error) {
	ep, err := module.EscapePath(path)
	if err != nil {
		return "", err
	}
	ev, err := module.EscapeVersion(version)
	if err != nil {
		return "", err
	}
	url := strings.TrimSuffix(proxy, "/") + "/" + ep + "/@v/" + ev + ".info"
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	var info struct {
		Origin struct{ Hash string }
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return "", fmt.Errorf("%s: %v", url, err)
	}
	return info.Origin.Hash, nil
}
