package check

import (
	"fmt"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Settings makes s render a source as cl would see it: objects without a
// namespace go to ns, and Helm's capabilities default to the cluster's
// version and API versions.
func Settings(s settings.Helm, ns string, cl *cluster.Client) (settings.Helm, error) {
	s.Namespace = ns
	if s.KubeVersion == "" {
		s.KubeVersion = cl.Version
	}
	var err error
	if s.APIVersions == nil {
		s.APIVersions, err = cl.APIVersions()
	}
	return s, err
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
