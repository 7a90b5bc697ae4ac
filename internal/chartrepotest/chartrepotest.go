// Package chartrepotest serves charts packaged by Helm from a Helm
// repository on a loopback address, for tests of remote charts: it
// counts the requests, and can list a chart whose archive is missing or
// endless.
package chartrepotest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	repo "helm.sh/helm/v4/pkg/repo/v1"
	"sigs.k8s.io/yaml"
)

// Server is a Helm repository: index.yaml and the archives it lists.
// It also answers requests sent to it as a proxy, by their path.
type Server struct {
	URL      string
	Archives atomic.Int64 // requests for an archive
	Indexes  atomic.Int64 // requests for index.yaml

	srv     *httptest.Server
	mu      sync.Mutex
	index   *repo.IndexFile
	files   map[string][]byte
	endless map[string]bool
}

// New starts a repository serving charts.
func New(charts ...*chart.Chart) (*Server, error) {
	s := &Server{index: repo.NewIndexFile(), files: map[string][]byte{}, endless: map[string]bool{}}
	for _, c := range charts {
		if err := s.Add(c); err != nil {
			return nil, err
		}
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Package is the archive of c as Helm packages it, and its file name.
func Package(c *chart.Chart) ([]byte, string, error) {
	dir, err := os.MkdirTemp("", "chartrepotest-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	p, err := chartutil.Save(c, dir)
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(p)
	return b, filepath.Base(p), err
}

// Add packages c with Helm and lists it.
func (s *Server) Add(c *chart.Chart) error {
	b, name, err := Package(c)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[name] = b
	return s.index.MustAdd(c.Metadata, name, "", hex.EncodeToString(sum[:]))
}

// AddMissing lists a version whose archive is not there (404).
func (s *Server) AddMissing(name, version string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.index.MustAdd(&chart.Metadata{APIVersion: "v2", Name: name, Version: version}, fmt.Sprintf("%s-%s.tgz", name, version), "", "")
}

// AddEndless lists a version whose archive never ends.
func (s *Server) AddEndless(name, version string) error {
	file := fmt.Sprintf("%s-%s.tgz", name, version)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endless[file] = true
	return s.index.MustAdd(&chart.Metadata{APIVersion: "v2", Name: name, Version: version}, file, "", "")
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	s.mu.Lock()
	s.index.SortEntries()
	index, err := yaml.Marshal(s.index)
	file, endless := s.files[name], s.endless[name]
	s.mu.Unlock()
	switch {
	case name == "index.yaml" && err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	case name == "index.yaml":
		s.Indexes.Add(1)
		w.Write(index)
	case endless:
		s.Archives.Add(1)
		zeros := make([]byte, 1<<20)
		for range 1 << 10 { // 1 GiB at most, unless the reader stops
			if _, err := w.Write(zeros); err != nil {
				return
			}
		}
	case file != nil:
		s.Archives.Add(1)
		w.Write(file)
	default:
		http.NotFound(w, r)
	}
}

// Chart is a chart named name at version, with templates and files (by
// path in the chart) and values.yaml.
func Chart(name, version, values string, files map[string]string) *chart.Chart {
	c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: name, Version: version}}
	c.Raw = []*common.File{{Name: "values.yaml", Data: []byte(values)}}
	for p, data := range files {
		f := &common.File{Name: p, Data: []byte(data)}
		if strings.HasPrefix(p, "templates/") {
			c.Templates = append(c.Templates, f)
		} else {
			c.Files = append(c.Files, f)
		}
	}
	return c
}
