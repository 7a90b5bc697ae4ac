package action

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/net/http/httpproxy"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/audit"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// What a remote chart may bring in: an index.yaml of a large public
// repository is tens of MiB, a chart archive rarely more than one.
const (
	maxIndexBytes   = 64 << 20
	maxArchiveBytes = 32 << 20
	maxRedirects    = 5
)

// remoteCharts downloads the charts of Helm repositories and OCI
// registries for preview --allow-remote-charts: each repository's index
// once per run, each archive once per cache directory, without credentials.
type remoteCharts struct {
	// mu makes the Applications rendering at once download one at a
	// time: each index and archive is then fetched once.
	mu     sync.Mutex
	cache  string // archives, by repoURL, chart and version (or tag)
	work   string // this run's indexes and extracted charts
	client *http.Client
	index  map[string]indexResult // by repoURL
	charts map[string]chartResult // by cache key
}

type indexResult struct {
	idx *chartIndex
	err error
}

type chartResult struct {
	dir string
	err error
}

// newRemoteCharts keeps archives in cache and works in work. Proxies are
// the caller's (HTTPS_PROXY, NO_PROXY...), not the worker's environment.
func newRemoteCharts(cache, work string, getenv func(string) string) *remoteCharts {
	first := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	proxy := (&httpproxy.Config{HTTPProxy: first("HTTP_PROXY", "http_proxy"), HTTPSProxy: first("HTTPS_PROXY", "https_proxy"),
		NoProxy: first("NO_PROXY", "no_proxy")}).ProxyFunc()
	tr := &http.Transport{Proxy: func(r *http.Request) (*url.URL, error) { return proxy(r.URL) }, ForceAttemptHTTP2: true}
	client := &http.Client{Transport: tr, CheckRedirect: func(_ *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		return nil
	}}
	return &remoteCharts{cache: cache, work: work, client: client, index: map[string]indexResult{}, charts: map[string]chartResult{}}
}

// unsupported says why the chart of src is not downloaded: a repoURL
// that is neither a Helm repository (http:// or https://) nor an OCI
// registry (no scheme, or oci://).
func unsupported(src *argocd.Source) string {
	if isOCI(src.RepoURL) {
		return ""
	}
	if u, err := url.Parse(src.RepoURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Sprintf("chart %s: repoURL %s is neither a Helm repository (http:// or https://) nor an OCI registry (without a scheme, or oci://), so it is not downloaded", src.Chart, src.RepoURL)
	}
	return ""
}

// chartHome names where a chart source's repoURL points, as Argo CD reads it.
func chartHome(repoURL string) string {
	if isOCI(repoURL) {
		return "the OCI registry " + repoURL
	}
	return "the Helm repository " + repoURL
}

// isOCI says whether repoURL names an OCI registry, as Argo CD reads it.
func isOCI(repoURL string) bool {
	return strings.HasPrefix(repoURL, "oci://") || !strings.Contains(repoURL, "://")
}

// chart downloads the chart of src, unless this run has, and returns the
// directory it is extracted in and its version.
func (rc *remoteCharts) chart(ctx context.Context, src *argocd.Source) (dir, version string, err error) {
	where := fmt.Sprintf("%s: %s: chart %s version %q of %s", src.Where, src.Field, src.Chart, src.TargetRevision, src.RepoURL)
	if u, err := url.Parse(src.RepoURL); err == nil && u.User != nil {
		return "", "", fmt.Errorf("%s: the repoURL holds credentials, and preview sends none: public repositories only; render it yourself (helm template) and audit the output with --manifests", where)
	}
	if src.TargetRevision == "" {
		return "", "", fmt.Errorf("%s: %s.targetRevision is empty: give the chart's version or a semver constraint, as Argo CD needs", where, src.Field)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if isOCI(src.RepoURL) {
		dir, version, err = rc.ociChart(ctx, src)
	} else {
		dir, version, err = rc.helmChart(ctx, src)
	}
	switch {
	case err != nil && version != "" && version != src.TargetRevision:
		return "", "", fmt.Errorf("%s (version %s): %w", where, version, err)
	case err != nil:
		return "", "", fmt.Errorf("%s: %w", where, err)
	}
	return dir, version, nil
}

// helmChart is chart for a Helm repository: the version is the newest
// its index.yaml lists that matches targetRevision.
func (rc *remoteCharts) helmChart(ctx context.Context, src *argocd.Source) (dir, version string, err error) {
	idx, err := rc.indexOf(ctx, src.RepoURL)
	if err != nil {
		return "", "", err
	}
	cv, err := idx.get(src.Chart, src.TargetRevision)
	switch {
	case errors.Is(err, errNoChart):
		return "", "", fmt.Errorf("the repository's index.yaml has no chart %s; check %s.chart and repoURL", src.Chart, src.Field)
	case err != nil:
		return "", "", fmt.Errorf("no version in the repository's index.yaml matches (%v); check %s.targetRevision", err, src.Field)
	case len(cv.URLs) == 0:
		return "", cv.Version, errors.New("the repository's index.yaml gives no download URL for it")
	}
	dir, err = rc.archive(cacheKey(src.RepoURL, src.Chart, cv.Version), func(b []byte) bool { return digestMatches(b, cv.Digest) }, func() ([]byte, error) {
		u, err := chartURL(src.RepoURL, cv.URLs[0])
		if err != nil {
			return nil, err
		}
		b, err := rc.get(ctx, u, maxArchiveBytes)
		if err != nil {
			return nil, fmt.Errorf("downloading the chart its index.yaml lists: %w", err)
		}
		if !digestMatches(b, cv.Digest) {
			return nil, fmt.Errorf("the archive %s does not have the digest the repository's index gives (%s): the repository is changing or inconsistent; try again later", u, cv.Digest)
		}
		return b, nil
	})
	return dir, cv.Version, err
}

func cacheKey(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:])
}

// indexOf reads the index.yaml of the repository at repoURL, once a run.
func (rc *remoteCharts) indexOf(ctx context.Context, repoURL string) (*chartIndex, error) {
	if r, ok := rc.index[repoURL]; ok {
		return r.idx, r.err
	}
	var r indexResult
	r.idx, r.err = rc.readIndex(ctx, repoURL)
	rc.index[repoURL] = r
	return r.idx, r.err
}

func (rc *remoteCharts) readIndex(ctx context.Context, repoURL string) (*chartIndex, error) {
	u, err := url.JoinPath(repoURL, "index.yaml")
	if err != nil {
		return nil, err
	}
	b, err := rc.get(ctx, u, maxIndexBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the repository's index (is repoURL a Helm repository, reachable from here?): %w", err)
	}
	idx, err := parseChartIndex(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not a Helm repository index: %w", u, err)
	}
	return idx, nil
}

// archive extracts the chart archive of key for this run, once: the
// cache's copy if valid says it is good, else what download returns,
// which is kept in the cache.
func (rc *remoteCharts) archive(key string, valid func([]byte) bool, download func() ([]byte, error)) (string, error) {
	if r, ok := rc.charts[key]; ok {
		return r.dir, r.err
	}
	var r chartResult
	r.dir, r.err = rc.extract(key, valid, download)
	rc.charts[key] = r
	return r.dir, r.err
}

func (rc *remoteCharts) extract(key string, valid func([]byte) bool, download func() ([]byte, error)) (string, error) {
	cached := filepath.Join(rc.cache, key+".tgz")
	b, err := readBounded(cached, maxArchiveBytes)
	if err != nil || !valid(b) {
		if b, err = download(); err != nil {
			return "", err
		}
		if err := writeAtomic(rc.cache, cached, b); err != nil {
			return "", fmt.Errorf("keeping the chart in the cache %s: %w", rc.cache, err)
		}
	}
	dir, err := os.MkdirTemp(rc.work, "chart-")
	if err != nil {
		return "", err
	}
	if err := chartutil.Expand(dir, bytes.NewReader(b)); err != nil {
		return "", fmt.Errorf("extracting the chart archive: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(entries) != 1 || !entries[0].IsDir() {
		return "", errors.New("the chart archive does not hold one chart directory")
	}
	return filepath.Join(dir, entries[0].Name()), nil
}

// get reads the body of u, at most max bytes, under ctx's deadline.
func (rc *remoteCharts) get(ctx context.Context, u string, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, http.NoBody)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "cmp-defaults-preview")
	resp, err := rc.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, credentialsWanted("repository", "repositories"))
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	case resp.ContentLength > max:
		return nil, fmt.Errorf("GET %s: %d bytes, more than the %d MiB allowed", u, resp.ContentLength, max>>20)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("GET %s: more than the %d MiB allowed", u, max>>20)
	}
	return b, nil
}

// credentialsWanted says what to do when a repository or registry (what,
// and its plural) refuses an anonymous request.
func credentialsWanted(what, plural string) string {
	return "the " + what + " wants credentials, and preview sends none (Argo CD's repository credentials are not available to it): public " + plural + " only; render this chart yourself (helm template) and audit the output with --manifests"
}

// readBounded reads the file p of at most max bytes.
func readBounded(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s: more than %d bytes", p, max)
	}
	return b, err
}

// digestMatches says whether b has the index's digest (sha256, hex);
// an index without one is taken at its word.
func digestMatches(b []byte, digest string) bool {
	if digest == "" {
		return true
	}
	sum := sha256.Sum256(b)
	return strings.EqualFold(hex.EncodeToString(sum[:]), strings.TrimPrefix(digest, "sha256:"))
}

// renderRemote renders the chart of a Helm repository of src as Argo CD
// does: downloaded, with the Application's Helm settings; a values file
// $REF/PATH comes from the repository root of the source with ref REF
// (this repository: the rule that it stays inside holds there), one
// without from the chart. why says why it is not rendered.
func (a *Audit) renderRemote(ctx context.Context, env *Env, cache *flagEngine, root, this string, src *argocd.Source, refs map[string]*argocd.Source) (targets []*audit.Target, res []*operators.Resolution, why string, err error) {
	if why := unsupported(src); why != "" {
		return nil, nil, why, nil
	}
	h, d, err := a.settings(src)
	if err != nil {
		return nil, nil, "", err
	}
	roots := map[string]string{}
	for _, f := range h.ValuesFiles {
		name, _, why, err := a.valuesRef(src, f, this, refs)
		if why != "" || err != nil {
			return nil, nil, why, err
		}
		if name != "" {
			roots[name] = root
		}
	}
	dir, version, err := a.charts.chart(ctx, src)
	if err != nil {
		return nil, nil, "", err
	}
	// The chart's own files are its root: a values file without $REF
	// stays inside the chart.
	opt, err := a.sourceOptions(env, dir, filepath.Dir(dir), h, d)
	if err != nil {
		return nil, nil, "", err
	}
	opt.Refs = roots
	targets, res, err = a.renderFill(ctx, env, cache, src, opt, fmt.Sprintf("chart %s %s of %s", src.Chart, version, src.RepoURL))
	return targets, res, "", err
}
