package check

import (
	"fmt"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// SourceOptions makes opt render a source as cl would see it: objects
// without a namespace go to ns, and Helm's capabilities default to the
// cluster's version and API versions.
func SourceOptions(opt render.Options, ns, kubeVersion string, apiVersions []string, cl *cluster.Client) (render.Options, error) {
	opt.Namespace = ns
	opt.KubeVersion, opt.APIVersions = kubeVersion, apiVersions
	if opt.KubeVersion == "" {
		opt.KubeVersion = cl.Version
	}
	var err error
	if opt.APIVersions == nil {
		opt.APIVersions, err = cl.APIVersions()
	}
	return opt, err
}

// Namespace is where objects without one go: ns, else the context's.
func Namespace(ns string, cl *cluster.Client) string {
	if ns == "" {
		return cl.Namespace
	}
	return ns
}

// Summary is the one line that ends a check where objects differ, empty
// when none does.
func (r *Report) Summary(host string) string {
	differ, fields := r.Differ()
	if differ == 0 {
		return ""
	}
	return fmt.Sprintf("%d object(s) differ from what %s stores (%d field(s)): the selected profiles do not match this cluster", differ, host, fields)
}
