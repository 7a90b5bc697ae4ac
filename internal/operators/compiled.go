package operators

import (
	"fmt"
	"reflect"
)

// The compiled form of a profile or index: what ParseProfile or ParseIndex
// made of a YAML file (lines, parsed paths and normalized values included),
// written by scripts/genprofiles beside each shipped YAML file and embedded
// instead of it, so that selecting an operator costs a read of a few flat
// records rather than a YAML parse and validation. The YAML stays the
// reviewable source; profiles' tests and genprofiles -check fail when a
// compiled file is not what its YAML gives.
//
// Layout: a magic line, then uvarints, zigzag varints, length-prefixed
// strings and tagged JSON values, in the order the Marshal functions below
// write them. It is no exchange format: a build reads only what the same
// code wrote.

// CompiledExt is the file extension of compiled profiles and indexes.
const CompiledExt = ".bin"

const (
	magicProfile = "cmp-defaults compiled profile 3\n"
	magicIndex   = "cmp-defaults compiled index 3\n"
)

// Value tags.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagArray
	tagObject
)

// tree.Seg tags: [], a name that is a substring of the path, any other name.
const (
	segIter byte = iota
	segSub
	segName
)

// CompileFile reads a YAML profile or index file and returns its compiled form.
func CompileFile(file string, data []byte) ([]byte, error) {
	h, err := readHeader(file, data)
	if err != nil {
		return nil, err
	}
	if h.Kind == KindIndex {
		ix, err := ParseIndex(file, data)
		if err != nil {
			return nil, err
		}
		return MarshalCompiledIndex(ix), nil
	}
	p, err := ParseProfile(file, data)
	if err != nil {
		return nil, err
	}
	return MarshalCompiled(p)
}

// SameProfile says how two profiles differ, parsed paths included, or nil:
// a profile read from its compiled form must be the one its YAML gives.
func SameProfile(a, b *Profile) error {
	if a.File != b.File || a.Source != b.Source {
		return fmt.Errorf("%s (%s) and %s (%s)", a.File, a.Source, b.File, b.Source)
	}
	ma, err := MarshalCompiled(a)
	if err != nil {
		return err
	}
	mb, err := MarshalCompiled(b)
	if err != nil {
		return err
	}
	if string(ma) != string(mb) {
		return fmt.Errorf("%s: the profiles differ", a.File)
	}
	ca, cb := *a, *b
	ca.Resources, cb.Resources = nil, nil
	if !reflect.DeepEqual(ca, cb) {
		return fmt.Errorf("%s: the profiles differ", a.File)
	}
	for i := range a.Resources {
		ra, rb := a.Resources[i], b.Resources[i]
		if err := sameDefaults(a.File, ra.Defaults, rb.Defaults); err != nil {
			return err
		}
		if err := sameDefaults(a.File, ra.ReadDefaults, rb.ReadDefaults); err != nil {
			return err
		}
		if !reflect.DeepEqual(ra.Mutations, rb.Mutations) || !reflect.DeepEqual(ra.Rewrites, rb.Rewrites) || !reflect.DeepEqual(ra.Maps, rb.Maps) ||
			ra.StorageVersion != rb.StorageVersion || ra.Conversion != rb.Conversion {
			return fmt.Errorf("%s:%d: %s %s differs", a.File, ra.Line, ra.APIVersion(), ra.Kind)
		}
	}
	return nil
}

// sameDefaults compares two lists of defaults, parsed paths included.
func sameDefaults(file string, a, b []Default) error {
	if len(a) != len(b) {
		return fmt.Errorf("%s: %d and %d defaults", file, len(a), len(b))
	}
	for j := range a {
		sa, err := a[j].Segs()
		if err != nil {
			return err
		}
		sb, err := b[j].Segs()
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(sa, sb) || !reflect.DeepEqual(a[j].Value, b[j].Value) {
			return fmt.Errorf("%s:%d: %s differs", file, a[j].Line, a[j].Path)
		}
	}
	return nil
}
