package operators

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
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
	magicProfile = "cmp-defaults compiled profile 2\n"
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

type writer struct {
	b    []byte
	prev string // the path written last: the next is written as what it shares with it plus the rest
}

// path writes a default's path as the length of the prefix it shares with
// the previous one and the rest: sorted paths share most of their bytes.
func (w *writer) path(p string) {
	n := 0
	for n < len(p) && n < len(w.prev) && p[n] == w.prev[n] {
		n++
	}
	w.uint(uint64(n))
	w.str(p[n:])
	w.prev = p
}

func (w *writer) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *writer) int(n int64)   { w.b = binary.AppendVarint(w.b, n) }
func (w *writer) byte(c byte)   { w.b = append(w.b, c) }

// str writes each string, length first.
func (w *writer) str(ss ...string) {
	for _, s := range ss {
		w.uint(uint64(len(s)))
		w.b = append(w.b, s...)
	}
}

func (w *writer) strs(s []string) {
	w.uint(uint64(len(s)))
	for _, x := range s {
		w.str(x)
	}
}

func (w *writer) bool(v bool) {
	if v {
		w.byte(1)
	} else {
		w.byte(0)
	}
}

func (w *writer) value(v any) error {
	switch x := v.(type) {
	case nil:
		w.byte(tagNull)
	case bool:
		if x {
			w.byte(tagTrue)
		} else {
			w.byte(tagFalse)
		}
	case int64:
		w.byte(tagInt)
		w.int(x)
	case float64:
		w.byte(tagFloat)
		w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(x))
	case string:
		w.byte(tagString)
		w.str(x)
	case []any:
		w.byte(tagArray)
		w.uint(uint64(len(x)))
		for _, e := range x {
			if err := w.value(e); err != nil {
				return err
			}
		}
	case map[string]any:
		w.byte(tagObject)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.uint(uint64(len(keys)))
		for _, k := range keys {
			w.str(k)
			if err := w.value(x[k]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("value of type %T is not a JSON value", v)
	}
	return nil
}

// segs writes a parsed path; names found in the path are written as
// offsets, so that they cost neither bytes nor allocations when read.
func (w *writer) segs(path string, segs []tree.Seg) {
	w.uint(uint64(len(segs)))
	from := 0
	for _, s := range segs {
		if s.Iter {
			w.byte(segIter)
			continue
		}
		if i := strings.Index(path[from:], s.Name); i >= 0 && s.Name != "" {
			w.byte(segSub)
			w.uint(uint64(from + i))
			w.uint(uint64(len(s.Name)))
			from += i + len(s.Name)
			continue
		}
		w.byte(segName)
		w.str(s.Name)
	}
}

// MarshalCompiled writes the compiled form of a profile that ParseProfile
// returned (its paths parsed, its values normalized).
func MarshalCompiled(p *Profile) ([]byte, error) {
	w := &writer{b: []byte(magicProfile)}
	w.str(p.APIVersion, p.Kind, p.Operator, p.Version, p.Channel, p.Description)
	w.bool(p.Provenance != nil)
	if pv := p.Provenance; pv != nil {
		w.str(pv.Repository, pv.Tag)
		w.uint(uint64(len(pv.Files)))
		for _, f := range pv.Files {
			w.str(f.Path, f.Blob)
		}
	}
	w.bool(p.Learned != nil)
	if l := p.Learned; l != nil {
		w.str(l.Cluster, l.Context, l.SecondContext, l.ServerVersion, l.Time, l.Module, l.Configuration)
		w.int(int64(l.Objects))
		w.int(int64(l.Varied))
		w.strs(l.Operators)
		w.str(l.Overrides)
	}
	w.uint(uint64(len(p.Resources)))
	for i := range p.Resources {
		r := &p.Resources[i]
		w.str(r.Group, r.Version, r.Kind, r.Webhook)
		w.bool(r.Storage)
		w.int(int64(r.Line))
		w.strs(r.Maps)
		w.uint(uint64(len(r.Defaults)))
		for j := range r.Defaults {
			d := &r.Defaults[j]
			segs, err := d.Segs()
			if err != nil {
				return nil, fmt.Errorf("%s: %v", d.Path, err)
			}
			w.path(d.Path)
			w.segs(d.Path, segs)
			w.str(d.Type)
			w.bool(d.Nullable)
			w.int(int64(d.Line))
			if err := w.value(d.Value); err != nil {
				return nil, fmt.Errorf("%s: %v", d.Path, err)
			}
		}
		w.uint(uint64(len(r.Mutations)))
		for _, m := range r.Mutations {
			w.str(m.Path, m.When, m.Reason)
			w.int(int64(m.Line))
			if err := w.value(m.Value); err != nil {
				return nil, fmt.Errorf("%s: %v", m.Path, err)
			}
		}
	}
	if !extended(p) {
		return w.b, nil
	}
	// The mutation forms and rewrites come after the resources, only when
	// some profile has them: the compiled files of the others stay as
	// they were.
	for _, r := range p.Resources {
		for _, m := range r.Mutations {
			w.str(m.Format, m.Insert, m.Key)
			w.bool(m.Drop)
		}
		w.uint(uint64(len(r.Rewrites)))
		for _, x := range r.Rewrites {
			w.str(x.Path, x.When, x.Reason)
			w.int(int64(x.Line))
			if err := w.value(x.From); err != nil {
				return nil, fmt.Errorf("%s: %v", x.Path, err)
			}
			if err := w.value(x.To); err != nil {
				return nil, fmt.Errorf("%s: %v", x.Path, err)
			}
		}
	}
	return w.b, nil
}

// extended says whether a profile has mutation forms or rewrites.
func extended(p *Profile) bool {
	for _, r := range p.Resources {
		if len(r.Rewrites) > 0 {
			return true
		}
		for _, m := range r.Mutations {
			if m.Format != "" || m.Insert != "" || m.Drop {
				return true
			}
		}
	}
	return false
}

// MarshalCompiledIndex writes the compiled form of an index that
// ParseIndex returned.
func MarshalCompiledIndex(ix *Index) []byte {
	w := &writer{b: []byte(magicIndex)}
	w.str(ix.APIVersion, ix.Kind, ix.Operator, ix.Source)
	w.uint(uint64(len(ix.Releases)))
	for _, r := range ix.Releases {
		w.str(r.Version, r.Date, r.Profile, r.Mutations)
	}
	w.uint(uint64(len(ix.Webhooks)))
	for _, h := range ix.Webhooks {
		w.str(h.Name, h.From, h.To, h.File)
		w.uint(uint64(len(h.Rules)))
		for _, r := range h.Rules {
			w.strs(r.APIGroups)
			w.strs(r.APIVersions)
			w.strs(r.Resources)
			w.strs(r.Operations)
		}
	}
	return w.b
}

var errCorrupt = errors.New("truncated or corrupt")

// reader reads what writer wrote. Strings are slices of one string of the
// whole file; the first error sticks and later reads return zero values.
type reader struct {
	s    string
	i    int
	err  error
	prev string
}

func (r *reader) path() string {
	n := r.uint()
	if n > uint64(len(r.prev)) {
		r.fail()
		return ""
	}
	rest := r.str()
	if n == 0 {
		r.prev = rest
	} else {
		r.prev = r.prev[:n] + rest
	}
	return r.prev
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.i = len(r.s)
}

func (r *reader) uint() uint64 {
	var n uint64
	var shift uint
	for r.i < len(r.s) && shift < 64 {
		c := r.s[r.i]
		r.i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
		shift += 7
	}
	r.fail()
	return 0
}

func (r *reader) int() int64 {
	u := r.uint()
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a length no larger than what is left to read (each element
// takes at least one byte), so corrupt counts cannot make huge slices.
func (r *reader) count() int {
	n := r.uint()
	if n > uint64(len(r.s)-r.i) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *reader) str() string {
	n := r.count()
	s := r.s[r.i : r.i+n]
	r.i += n
	return s
}

func (r *reader) byte() byte {
	if r.i >= len(r.s) {
		r.fail()
		return 0
	}
	c := r.s[r.i]
	r.i++
	return c
}

func (r *reader) bool() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail()
	return false
}

func (r *reader) strs() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *reader) value(depth int) any {
	if depth > 10000 {
		r.fail()
		return nil
	}
	switch r.byte() {
	case tagNull:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return r.int()
	case tagFloat:
		if len(r.s)-r.i < 8 {
			r.fail()
			return nil
		}
		bits := binary.LittleEndian.Uint64([]byte(r.s[r.i : r.i+8]))
		r.i += 8
		return math.Float64frombits(bits)
	case tagString:
		return r.str()
	case tagArray:
		n := r.count()
		out := make([]any, n)
		for i := range out {
			out[i] = r.value(depth + 1)
		}
		return out
	case tagObject:
		n := r.count()
		out := make(map[string]any, n)
		for range n {
			k := r.str()
			out[k] = r.value(depth + 1)
		}
		return out
	}
	r.fail()
	return nil
}

// segs checks a parsed path's encoding and returns it undecoded: most
// kinds of a profile are never filled in a run, and their paths need not
// be built (decodeSegs does it when they are).
func (r *reader) segs(path string) string {
	start := r.i
	n := r.count()
	if n == 0 {
		r.fail()
		return ""
	}
	for range n {
		switch r.byte() {
		case segIter:
		case segSub:
			off, l := r.uint(), r.uint()
			if off > uint64(len(path)) || l > uint64(len(path))-off {
				r.fail()
			}
		case segName:
			r.str()
		default:
			r.fail()
		}
	}
	if r.err != nil {
		return ""
	}
	return r.s[start:r.i]
}

// decodeSegs decodes what segs checked.
func decodeSegs(path, enc string) []tree.Seg {
	r := &reader{s: enc}
	out := make([]tree.Seg, r.count())
	for i := range out {
		switch r.byte() {
		case segIter:
			out[i].Iter = true
		case segSub:
			off, l := r.uint(), r.uint()
			out[i].Name = path[off : off+l]
		case segName:
			out[i].Name = r.str()
		}
	}
	return out
}

func (r *reader) magic(m string) bool {
	if !strings.HasPrefix(r.s, m) {
		return false
	}
	r.i = len(m)
	return true
}

// done reports a read error, or bytes left over, as a LintError on file.
func (r *reader) done(file string) error {
	if r.err == nil && r.i != len(r.s) {
		r.err = errCorrupt
	}
	if r.err != nil {
		return &LintError{File: file, Msg: "compiled form " + r.err.Error() + "; regenerate it with scripts/gen-profiles.sh"}
	}
	return nil
}

// UnmarshalCompiled reads a compiled profile; file names the YAML it was
// compiled from, for messages and reports.
func UnmarshalCompiled(file string, data []byte) (*Profile, error) {
	r := &reader{s: string(data)}
	return unmarshalCompiled(file, r)
}

// UnmarshalCompiledOwned is UnmarshalCompiled of data that nobody changes
// afterwards (a buffer just read): its strings point into data instead of
// a copy.
func UnmarshalCompiledOwned(file string, data []byte) (*Profile, error) {
	return unmarshalCompiled(file, &reader{s: unsafe.String(unsafe.SliceData(data), len(data))})
}

func unmarshalCompiled(file string, r *reader) (*Profile, error) {
	if !r.magic(magicProfile) {
		return nil, &LintError{File: file, Msg: "not a compiled profile"}
	}
	p := &Profile{File: file}
	p.APIVersion, p.Kind, p.Operator, p.Version, p.Channel, p.Description = r.str(), r.str(), r.str(), r.str(), r.str(), r.str()
	if r.bool() {
		pv := &Provenance{Repository: r.str(), Tag: r.str()}
		if n := r.count(); n > 0 {
			pv.Files = make([]ProvenanceFile, n)
			for i := range pv.Files {
				pv.Files[i] = ProvenanceFile{Path: r.str(), Blob: r.str()}
			}
		}
		p.Provenance = pv
	}
	if r.bool() {
		l := &Learned{Cluster: r.str(), Context: r.str(), SecondContext: r.str(), ServerVersion: r.str(), Time: r.str(), Module: r.str(), Configuration: r.str()}
		l.Objects = int(r.int())
		l.Varied = int(r.int())
		l.Operators = r.strs()
		l.Overrides = r.str()
		p.Learned = l
	}
	p.Resources = make([]Resource, r.count())
	for i := range p.Resources {
		res := &p.Resources[i]
		res.Group, res.Version, res.Kind, res.Webhook = r.str(), r.str(), r.str(), r.str()
		res.Storage = r.bool()
		res.Line = int(r.int())
		res.Maps = r.strs()
		if n := r.count(); n > 0 {
			res.Defaults = make([]Default, n)
			for j := range res.Defaults {
				d := &res.Defaults[j]
				d.Path = r.path()
				d.compiled, d.parsed = r.segs(d.Path), d.Path
				d.Type = r.str()
				d.Nullable = r.bool()
				d.Line = int(r.int())
				d.Value = r.value(0)
			}
		}
		if n := r.count(); n > 0 {
			res.Mutations = make([]Mutation, n)
			for j := range res.Mutations {
				m := &res.Mutations[j]
				m.Path, m.When, m.Reason = r.str(), r.str(), r.str()
				m.Line = int(r.int())
				m.Value = r.value(0)
			}
		}
		if r.err != nil {
			break
		}
	}
	if r.err == nil && r.i < len(r.s) {
		for i := range p.Resources {
			res := &p.Resources[i]
			for j := range res.Mutations {
				m := &res.Mutations[j]
				m.Format, m.Insert, m.Key = r.str(), r.str(), r.str()
				m.Drop = r.bool()
			}
			if n := r.count(); n > 0 {
				res.Rewrites = make([]Rewrite, n)
				for j := range res.Rewrites {
					x := &res.Rewrites[j]
					x.Path, x.When, x.Reason = r.str(), r.str(), r.str()
					x.Line = int(r.int())
					x.From, x.To = r.value(0), r.value(0)
				}
			}
		}
	}
	if err := r.done(file); err != nil {
		return nil, err
	}
	return p, nil
}

// UnmarshalCompiledIndex reads a compiled index; file names its YAML.
func UnmarshalCompiledIndex(file string, data []byte) (*Index, error) {
	r := &reader{s: string(data)}
	if !r.magic(magicIndex) {
		return nil, &LintError{File: file, Msg: "not a compiled index"}
	}
	ix := &Index{File: file}
	ix.APIVersion, ix.Kind, ix.Operator, ix.Source = r.str(), r.str(), r.str(), r.str()
	if n := r.count(); n > 0 {
		ix.Releases = make([]Release, n)
		for i := range ix.Releases {
			ix.Releases[i] = Release{Version: r.str(), Date: r.str(), Profile: r.str(), Mutations: r.str()}
		}
	}
	if n := r.count(); n > 0 {
		ix.Webhooks = make([]Webhook, n)
		for i := range ix.Webhooks {
			h := &ix.Webhooks[i]
			h.Name, h.From, h.To, h.File = r.str(), r.str(), r.str(), r.str()
			if m := r.count(); m > 0 {
				h.Rules = make([]WebhookRule, m)
				for j := range h.Rules {
					h.Rules[j] = WebhookRule{APIGroups: r.strs(), APIVersions: r.strs(), Resources: r.strs(), Operations: r.strs()}
				}
			}
		}
	}
	if err := r.done(file); err != nil {
		return nil, err
	}
	return ix, nil
}

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
		for j := range ra.Defaults {
			sa, err := ra.Defaults[j].Segs()
			if err != nil {
				return err
			}
			sb, err := rb.Defaults[j].Segs()
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(sa, sb) || !reflect.DeepEqual(ra.Defaults[j].Value, rb.Defaults[j].Value) {
				return fmt.Errorf("%s:%d: %s differs", a.File, ra.Defaults[j].Line, ra.Defaults[j].Path)
			}
		}
		if !reflect.DeepEqual(ra.Mutations, rb.Mutations) || !reflect.DeepEqual(ra.Rewrites, rb.Rewrites) || !reflect.DeepEqual(ra.Maps, rb.Maps) {
			return fmt.Errorf("%s:%d: %s %s differs", a.File, ra.Line, ra.APIVersion(), ra.Kind)
		}
	}
	return nil
}
