package operators

import (
	"fmt"
	"strings"
)

// Lint loads every profile in the store and checks each index against the
// profiles: an indexed release must point at a profile that exists and is
// the newest at or below it. It returns how many profiles were read and
// every problem found, the store's own load problems first.
func Lint(s *Store) (int, []error) {
	n := 0
	errs := append([]error{}, s.Problems...)
	for _, name := range s.Operators() {
		ps, err := s.Profiles(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, p := range ps {
			if p.Operator != name {
				errs = append(errs, &LintError{File: p.File, Line: 1, Msg: fmt.Sprintf("operator %q does not match its directory %q", p.Operator, name)})
			}
		}
		n += len(ps)
		o := s.ops[name]
		for _, ix := range o.indexes {
			versions := o.profileVersions()
			for _, r := range ix.Releases {
				if o.profiles[r.Profile] == nil {
					errs = append(errs, &LintError{File: ix.File, Msg: fmt.Sprintf("release %s points at profile %s, which does not exist", r.Version, r.Profile)})
					continue
				}
				want := ""
				for _, v := range versions {
					if CompareVersions(v, r.Version) <= 0 {
						want = v
					}
				}
				if want != r.Profile {
					errs = append(errs, &LintError{File: ix.File, Msg: fmt.Sprintf("release %s points at profile %s, but the newest profile at or below it is %s", r.Version, r.Profile, want)})
				}
			}
		}
	}
	return n, errs
}

// builtinGroups are the API groups the Kubernetes API server serves itself
// (CRD groups such as gateway.networking.k8s.io are not among them).
var builtinGroups = map[string]bool{
	"": true, "apps": true, "batch": true, "autoscaling": true, "policy": true, "extensions": true,
	"admissionregistration.k8s.io": true, "apiextensions.k8s.io": true, "apiregistration.k8s.io": true,
	"authentication.k8s.io": true, "authorization.k8s.io": true, "certificates.k8s.io": true,
	"coordination.k8s.io": true, "discovery.k8s.io": true, "events.k8s.io": true,
	"flowcontrol.apiserver.k8s.io": true, "internal.apiserver.k8s.io": true, "networking.k8s.io": true,
	"node.k8s.io": true, "rbac.authorization.k8s.io": true, "resource.k8s.io": true,
	"scheduling.k8s.io": true, "storage.k8s.io": true, "storagemigration.k8s.io": true,
}

// IsBuiltinGroup reports whether an API group is served by the Kubernetes
// API server itself rather than defined by a CRD.
func IsBuiltinGroup(group string) bool { return builtinGroups[group] }

// BuiltinClaims lists the rules of user profiles that cover built-in
// Kubernetes kinds (apps/v1 Deployment, v1 Pod, ...): an operator's
// admission does not default those, and a profile that claims them can
// change any workload (its images, its commands) for every application
// that selects it. Shipped profiles are trusted and not listed.
func BuiltinClaims(s *Store) ([]string, error) {
	var out []string
	for _, name := range s.Operators() {
		ps, err := s.Profiles(name)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.Source == Shipped {
				continue
			}
			for _, r := range p.Resources {
				if IsBuiltinGroup(r.Group) {
					out = append(out, fmt.Sprintf("%s:%d: %s@%s has rules for %s %s, a built-in Kubernetes kind; profiles describe operators' CRDs and webhooks",
						p.File, r.Line, p.Operator, strings.TrimPrefix(p.Version, "v"), r.APIVersion(), r.Kind))
				}
			}
		}
	}
	return out, nil
}
