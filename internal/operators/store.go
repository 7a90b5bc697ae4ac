package operators

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Shipped is the name of the source of embedded profiles.
const Shipped = "shipped"

// Store knows every operator, its checked releases and its profiles, from
// the embedded set and user directories. Profiles are parsed on first use.
type Store struct {
	ops map[string]*operator
	// Warnings name files of user directories that were skipped because
	// they are not cmp-defaults files (a kustomization.yaml beside a
	// ConfigMap's files).
	Warnings []string
	// Problems are the errors of every bad file when LoadOptions.KeepGoing
	// is set (profiles lint reports them all).
	Problems []error
}

type operator struct {
	name     string
	releases map[string]Release // checked releases by version
	sources  map[string]bool
	profiles map[string]*profileRef
	indexes  []*Index

	// The shipped index is parsed on first use, so that start-up reads
	// only the indexes of the operators a run selects.
	shippedIndex fs.FS
	indexFile    string // index.yaml, or index.bin when only the compiled form is there
	indexOnce    sync.Once
	indexErr     error
}

// index parses the shipped index once, if there is one.
func (o *operator) index() error {
	o.indexOnce.Do(func() {
		if o.shippedIndex == nil {
			return
		}
		data, err := fs.ReadFile(o.shippedIndex, o.indexFile)
		if err != nil {
			o.indexErr = err
			return
		}
		var ix *Index
		if yaml := sourceName(o.indexFile); yaml != o.indexFile {
			ix, err = UnmarshalCompiledIndex("profiles/"+yaml, data)
		} else {
			ix, err = ParseIndex("profiles/"+o.indexFile, data)
		}
		if err != nil {
			o.indexErr = err
			return
		}
		// Shipped before user indexes, as when parsed at load.
		user := o.indexes
		o.indexes = nil
		o.addIndex(ix)
		for _, u := range user {
			o.addIndex(u)
		}
	})
	return o.indexErr
}

type profileRef struct {
	version string
	file    string // the file read: <version>.yaml, or <version>.bin (compiled) for shipped profiles
	source  string
	fsys    fs.FS
	once    sync.Once
	p       *Profile
	err     error
}

func (r *profileRef) load() (*Profile, error) {
	r.once.Do(func() {
		if r.p != nil {
			return
		}
		if r.file != sourceName(r.file) {
			var s string
			if s, r.err = readString(r.fsys, r.file); r.err == nil {
				r.p, r.err = unmarshalCompiled(r.display(), s)
			}
		} else {
			var data []byte
			if data, r.err = fs.ReadFile(r.fsys, r.file); r.err == nil {
				r.p, r.err = ParseProfile(r.display(), data)
			}
		}
		if r.err == nil {
			r.p.Source = r.source
		}
	})
	return r.p, r.err
}

// readString reads a file into a string with one allocation of its size:
// a compiled profile's strings are slices of it, so reading it as []byte
// would need a second copy.
func readString(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= MaxProfileBytes {
		b.Grow(int(fi.Size()))
	}
	var buf [4096]byte
	if _, err := io.CopyBuffer(&b, f, buf[:]); err != nil {
		return "", err
	}
	return b.String(), nil
}

// display names the YAML file of the profile, even when its compiled
// form was read: the YAML is what people read and fix.
func (r *profileRef) display() string {
	if r.source == Shipped {
		return "profiles/" + sourceName(r.file)
	}
	return r.file
}

// sourceName is the YAML file a compiled file was made from; other names
// are returned as they are.
func sourceName(file string) string {
	if base, ok := strings.CutSuffix(file, CompiledExt); ok {
		return base + ".yaml"
	}
	return file
}

// LoadOptions say where profiles come from.
type LoadOptions struct {
	// Embedded is the shipped profiles, laid out <operator>/<version>.yaml
	// and <operator>/index.yaml, or their compiled forms (.bin) where the
	// YAML is absent (the binary embeds only those).
	Embedded fs.FS
	Dirs     []string // user directories, searched recursively; any file layout
	// KeepGoing collects the errors of bad files in Store.Problems instead
	// of failing on the first.
	KeepGoing bool
}

// Load builds a store. Shipped files are listed, not parsed (indexes and
// profiles are parsed when an operator is first used); user files are
// parsed now so that mistakes show up at once, with their file names.
func Load(opt LoadOptions) (*Store, error) {
	s := &Store{ops: map[string]*operator{}}
	if opt.Embedded != nil {
		if err := s.addEmbedded(opt.Embedded); err != nil {
			return nil, err
		}
	}
	seen := map[string]string{} // operator@version -> user file
	for _, dir := range opt.Dirs {
		if err := s.addDir(dir, seen, opt.KeepGoing); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) op(name string) *operator {
	o := s.ops[name]
	if o == nil {
		o = &operator{name: name, releases: map[string]Release{}, sources: map[string]bool{}, profiles: map[string]*profileRef{}}
		s.ops[name] = o
	}
	return o
}

func (s *Store) addEmbedded(fsys fs.FS) error {
	dirs, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := fs.ReadDir(fsys, d.Name())
		if err != nil {
			return err
		}
		o := s.op(d.Name())
		o.sources[Shipped] = true
		// A YAML file wins over its compiled form: in a source tree the
		// YAML is the truth, and the compiled file may be stale.
		for _, ext := range []string{CompiledExt, ".yaml"} {
			for _, f := range files {
				name := f.Name()
				base, ok := strings.CutSuffix(name, ext)
				if !ok {
					continue
				}
				file := path.Join(d.Name(), name)
				if base == "index" {
					o.shippedIndex, o.indexFile = fsys, file
					continue
				}
				v, err := CanonicalVersion(base)
				if err != nil {
					continue
				}
				o.profiles[v] = &profileRef{version: v, file: file, source: Shipped, fsys: fsys}
			}
		}
	}
	return nil
}

func (o *operator) addIndex(ix *Index) {
	o.indexes = append(o.indexes, ix)
	for _, r := range ix.Releases {
		o.releases[r.Version] = r
	}
}

func (s *Store) addDir(dir string, seen map[string]string, keepGoing bool) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("profiles directory %s: %v", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("profiles directory %s is not a directory", dir)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		// ConfigMap mounts keep their real files under hidden "..data" dirs
		// and expose them as symlinks: skip hidden entries, follow links.
		if p != dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("profiles directory %s: %v", dir, err)
	}
	sort.Strings(files)
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("profiles directory %s: %v", dir, err)
	}
	for _, f := range files {
		if err := s.addFile(dir, realDir, f, seen); err != nil {
			if !keepGoing {
				return err
			}
			// A file's problems, each on its own (errors.Join of ParseProfile).
			if many, ok := err.(interface{ Unwrap() []error }); ok {
				s.Problems = append(s.Problems, many.Unwrap()...)
			} else {
				s.Problems = append(s.Problems, err)
			}
		}
	}
	return nil
}

func (s *Store) addFile(dir, realDir, f string, seen map[string]string) error {
	data, err := readProfileFile(realDir, f)
	if err != nil {
		return err
	}
	h, err := readHeader(f, data)
	if err != nil {
		// Valid YAML that is not ours at all (invalid YAML stays an error).
		if le, ok := err.(*LintError); ok && le.Line == 1 && !strings.HasPrefix(h.APIVersion, "cmp-defaults.io/") {
			// Not ours at all: a kustomization or the like beside the profiles.
			s.Warnings = append(s.Warnings, fmt.Sprintf("skipping %s: not a cmp-defaults profile (apiVersion %q, kind %q)", f, h.APIVersion, h.Kind))
			return nil
		}
		return err
	}
	src := "user:" + dir
	if h.Kind == KindIndex {
		ix, err := ParseIndex(f, data)
		if err != nil {
			return err
		}
		o := s.op(ix.Operator)
		o.sources[src] = true
		o.addIndex(ix)
		return nil
	}
	p, err := ParseProfile(f, data)
	if err != nil {
		return err
	}
	key := p.Operator + "@" + p.Version
	if prev, dup := seen[key]; dup {
		return fmt.Errorf("%s and %s both define %s: keep one", prev, f, key)
	}
	seen[key] = f
	p.Source = src
	o := s.op(p.Operator)
	o.sources[src] = true
	o.profiles[p.Version] = &profileRef{version: p.Version, file: f, source: src, p: p}
	return nil
}

// MaxProfileBytes bounds one profile file; the largest shipped one is
// about 60 KB.
const MaxProfileBytes = 8 << 20

// readProfileFile reads a user profile file, refusing links that lead out
// of the profiles directory (a mounted ConfigMap's links stay inside) and
// oversized files.
func readProfileFile(realDir, f string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(f)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", f, err)
	}
	if r, err := filepath.Rel(realDir, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("profile %s links to %s, outside the profiles directory; copy the file in instead", f, real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", f, err)
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or device would block the read (and the run) forever.
		return nil, fmt.Errorf("profile %s is not a regular file (%s); profiles directories may hold only files and links to files", f, fi.Mode().Type())
	}
	if fi.Size() > MaxProfileBytes {
		return nil, fmt.Errorf("profile %s is %d bytes, more than the %d a profile may have", f, fi.Size(), MaxProfileBytes)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", f, err)
	}
	return data, nil
}
