package operators

import "fmt"

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
