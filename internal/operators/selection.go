package operators

import (
	"fmt"
	"strings"
)

// Selection is the operator releases a run asks for, as the command line
// or the plugin configuration gives them.
type Selection struct {
	Refs   []string // NAME@VERSION each (comma lists split by plugin.SplitList)
	Dirs   []string // extra or overriding profile directories
	Strict bool     // a release that was not checked is an error
	// DefaultsOnly names an operator whose release fills its CRD schema
	// defaults only, not its mutations: 'profiles learn' of a profile that
	// overrides the release observes everything the cluster's admission adds.
	DefaultsOnly string
}

// RefError is a malformed or conflicting operator reference: a mistake in
// the setting itself, not in the profiles.
type RefError struct{ Err error }

func (e *RefError) Error() string { return e.Err.Error() }
func (e *RefError) Unwrap() error { return e.Err }

// Resolve resolves every selected release in st, once per operator.
// Errors are *RefError or the store's *ResolveError.
func (s Selection) Resolve(st *Store) ([]*Resolution, error) {
	var res []*Resolution
	seen := map[string]string{}
	for _, ref := range s.Refs {
		name, ver, err := ParseRef(ref)
		if err != nil {
			return nil, &RefError{err}
		}
		if prev, dup := seen[name]; dup {
			if prev == ver {
				continue
			}
			return nil, &RefError{fmt.Errorf("conflicting releases for %s: %s and %s; select one", name, strings.TrimPrefix(prev, "v"), strings.TrimPrefix(ver, "v"))}
		}
		seen[name] = ver
		r, err := st.Resolve(name, ver, s.Strict)
		if err != nil {
			return nil, err
		}
		if name == s.DefaultsOnly {
			r.Profile = r.Profile.WithoutMutations()
		}
		res = append(res, r)
	}
	return res, nil
}

// WithoutMutations is a copy of p with its CRD schema defaults only.
func (p *Profile) WithoutMutations() *Profile {
	cp := *p
	cp.Resources = make([]Resource, len(p.Resources))
	for i, r := range p.Resources {
		r.Mutations, r.Rewrites = nil, nil
		cp.Resources[i] = r
	}
	return &cp
}
