package operators

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/mod/semver"
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
		data, err := fs.ReadFile(r.fsys, r.file)
		if err != nil {
			r.err = err
			return
		}
		if r.file != sourceName(r.file) {
			r.p, r.err = UnmarshalCompiledOwned(r.display(), data)
		} else {
			r.p, r.err = ParseProfile(r.display(), data)
		}
		if r.err == nil {
			r.p.Source = r.source
		}
	})
	return r.p, r.err
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

// Operators lists operator names, sorted.
func (s *Store) Operators() []string {
	var out []string
	for n := range s.ops {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Summary describes one operator for `profiles list`.
type Summary struct {
	Operator string   `json:"operator"`
	Oldest   string   `json:"oldest"`
	Newest   string   `json:"newest"`
	Releases int      `json:"releasesChecked"`
	Profiles []string `json:"profiles"`
	Sources  []string `json:"sources"`
	// InForce maps each profile version to the source whose file is used.
	InForce map[string]string `json:"inForce"`
}

// Summaries describes every operator.
func (s *Store) Summaries() ([]Summary, error) {
	var out []Summary
	for _, name := range s.Operators() {
		o := s.ops[name]
		if err := o.index(); err != nil {
			return nil, err
		}
		rel := o.checked()
		sm := Summary{Operator: name, Releases: len(rel), InForce: map[string]string{}}
		if len(rel) > 0 {
			sm.Oldest, sm.Newest = rel[0], rel[len(rel)-1]
		}
		for _, v := range o.profileVersions() {
			sm.Profiles = append(sm.Profiles, v)
			sm.InForce[v] = o.profiles[v].source
		}
		for src := range o.sources {
			sm.Sources = append(sm.Sources, src)
		}
		sort.Strings(sm.Sources)
		out = append(out, sm)
	}
	return out, nil
}

// checked is every release known for the operator: indexed ones and every
// profile version, sorted.
func (o *operator) checked() []string {
	set := map[string]bool{}
	for v := range o.releases {
		set[v] = true
	}
	for v := range o.profiles {
		set[v] = true
	}
	return sortedVersions(set)
}

func (o *operator) profileVersions() []string {
	set := map[string]bool{}
	for v := range o.profiles {
		set[v] = true
	}
	return sortedVersions(set)
}

func sortedVersions(set map[string]bool) []string {
	var out []string
	for v := range set {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return CompareVersions(out[i], out[j]) < 0 })
	return out
}

// Resolution is the profile chosen for a requested operator release.
type Resolution struct {
	Operator  string   // operator name
	Requested string   // canonical requested version
	Profile   *Profile // the profile in force
	Warning   string   // set when the release was not checked
}

// Ref is "operator@version" as written on the command line.
func (r Resolution) Ref() string { return r.Operator + "@" + r.Requested }

// ResolveError says why a release could not be resolved. Messages name no
// flag or variable: callers add how the user changes the setting.
type ResolveError struct {
	Msg     string
	Unknown bool // the operator has no profiles here
	Strict  bool // refused only because strict mode is on
}

func (e *ResolveError) Error() string { return e.Msg }

// ParseRef splits "name@version".
func ParseRef(ref string) (name, version string, err error) {
	name, version, ok := strings.Cut(strings.TrimSpace(ref), "@")
	if !ok || name == "" || version == "" {
		return "", "", fmt.Errorf("operator %q: write NAME@VERSION, e.g. external-secrets@2.5.0%s", ref, listHint(name))
	}
	v, err := CanonicalVersion(version)
	if err != nil {
		return "", "", fmt.Errorf("operator %q: %v", ref, err)
	}
	return name, v, nil
}

// Resolve finds the profile for an operator release: the newest profile at
// or below it. A patch release newer than every checked one, or one that
// was not checked, is a warning (an error when strict); a newer minor or
// major is an error.
func (s *Store) Resolve(name, version string, strict bool) (*Resolution, error) {
	o := s.ops[name]
	if o == nil {
		return nil, s.unknownError(name)
	}
	v, err := CanonicalVersion(version)
	if err != nil {
		return nil, &ResolveError{Msg: fmt.Sprintf("%s: %v", name, err)}
	}
	if err := o.index(); err != nil {
		return nil, err
	}
	rel := o.checked()
	profs := o.profileVersions()
	if len(profs) == 0 {
		return nil, &ResolveError{Msg: fmt.Sprintf("operator %s has no profiles", name)}
	}
	var chosen string
	for _, pv := range profs {
		if CompareVersions(pv, v) <= 0 {
			chosen = pv
		}
	}
	if chosen == "" {
		return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is older than the oldest known release %s; known releases: %s to %s%s; "+
			"select one of those ('cmp-defaults profiles show %s' lists them), or make a profile of %s's CRDs with 'cmp-defaults profiles extract --operator %s@%s CRD.yaml... --write DIR' and add DIR to the profiles directories",
			name, strings.TrimPrefix(v, "v"), rel[0], rel[0], rel[len(rel)-1], chartHint(name, v), name, strings.TrimPrefix(v, "v"), name, strings.TrimPrefix(v, "v"))}
	}
	res := &Resolution{Operator: name, Requested: v}
	if _, ok := o.releases[v]; !ok && o.profiles[v] == nil {
		newest := rel[len(rel)-1]
		switch {
		case CompareVersions(v, newest) > 0 && semver.MajorMinor(v) != semver.MajorMinor(newest):
			// A new minor or major may change the CRDs: no profile is known
			// to hold, and under Argo CD a warning is never seen.
			return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is newer than every checked release and not a patch of the newest, %s, whose profile may not hold for it%s; pin a checked release (known: %s to %s), or make a profile of its CRDs with 'cmp-defaults profiles extract'", name, strings.TrimPrefix(v, "v"), newest, chartHint(name, v), rel[0], newest)}
		case CompareVersions(v, newest) > 0:
			res.Warning = fmt.Sprintf("%s@%s is newer than every checked release (newest: %s); using the profile of %s (a patch release seldom changes CRDs). Check them with 'cmp-defaults profiles extract' or pin a checked release", name, strings.TrimPrefix(v, "v"), newest, chosen)
			if strict {
				return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is newer than every checked release (newest: %s), so no profile is known to hold for it; pin a checked release, or make a profile of its CRDs with 'cmp-defaults profiles extract'", name, strings.TrimPrefix(v, "v"), newest), Strict: true}
			}
		default:
			res.Warning = fmt.Sprintf("%s@%s is not a checked release; using the profile of %s, the newest at or below it. 'cmp-defaults profiles show %s' lists checked releases", name, strings.TrimPrefix(v, "v"), chosen, name)
			if strict {
				return nil, &ResolveError{Msg: fmt.Sprintf("%s@%s is not a checked release, so no profile is known to hold for it; pin a checked release ('cmp-defaults profiles show %s' lists them)", name, strings.TrimPrefix(v, "v"), name), Strict: true}
			}
		}
	}
	p, err := o.profiles[chosen].load()
	if err != nil {
		return nil, err
	}
	res.Profile = p
	return res, nil
}

// Releases lists the checked releases of an operator with the profile in
// force for each.
func (s *Store) Releases(name string) ([]Release, error) {
	o := s.ops[name]
	if o == nil {
		return nil, s.unknownError(name)
	}
	if err := o.index(); err != nil {
		return nil, err
	}
	profs := o.profileVersions()
	var out []Release
	for _, v := range o.checked() {
		r := o.releases[v]
		r.Version = v
		r.Profile = ""
		for _, pv := range profs {
			if CompareVersions(pv, v) <= 0 {
				r.Profile = pv
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// IndexSource is the upstream source the first index of an operator names.
func (s *Store) IndexSource(name string) string {
	if o := s.ops[name]; o != nil && o.index() == nil && len(o.indexes) > 0 {
		return o.indexes[0].Source
	}
	return ""
}

// Webhooks are the mutating webhooks the first index of an operator
// records (see Index.Webhooks).
func (s *Store) Webhooks(name string) []Webhook {
	if o := s.ops[name]; o != nil && o.index() == nil && len(o.indexes) > 0 {
		return o.indexes[0].Webhooks
	}
	return nil
}

// ProfileFile names where the profile of a version comes from.
func (s *Store) ProfileFile(name, version string) (file, source string) {
	if o := s.ops[name]; o != nil {
		if r := o.profiles[version]; r != nil {
			return r.display(), r.source
		}
	}
	return "", ""
}

// Profiles loads every profile of an operator (for lint and tests).
func (s *Store) Profiles(name string) ([]*Profile, error) {
	o := s.ops[name]
	if o == nil {
		return nil, &ResolveError{Msg: fmt.Sprintf("unknown operator %q", name)}
	}
	if err := o.index(); err != nil {
		return nil, err
	}
	var out []*Profile
	for _, v := range o.profileVersions() {
		p, err := o.profiles[v].load()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
