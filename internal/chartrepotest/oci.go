package chartrepotest

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/google/go-containerregistry/pkg/registry"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	helmregistry "helm.sh/helm/v4/pkg/registry"
)

// Registry is an OCI registry (go-containerregistry's, in memory) holding
// charts that Helm's registry client pushed, counting blob requests.
type Registry struct {
	Host  string // 127.0.0.1:PORT
	Blobs atomic.Int64

	srv *httptest.Server
}

// NewRegistry starts a registry with charts pushed to HOST/charts/NAME:VERSION.
func NewRegistry(charts ...*chart.Chart) (*Registry, error) {
	r := &Registry{}
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/") {
			r.Blobs.Add(1)
		}
		reg.ServeHTTP(w, req)
	}))
	r.Host = strings.TrimPrefix(r.srv.URL, "http://")
	dir, err := os.MkdirTemp("", "chartrepotest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	client, err := helmregistry.NewClient(helmregistry.ClientOptPlainHTTP(), helmregistry.ClientOptCredentialsFile(filepath.Join(dir, "config.json")))
	if err != nil {
		return nil, err
	}
	for _, c := range charts {
		b, _, err := Package(c)
		if err != nil {
			return nil, err
		}
		if _, err := client.Push(b, r.Host+"/charts/"+c.Name()+":"+c.Metadata.Version); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Close stops the registry.
func (r *Registry) Close() { r.srv.Close() }
