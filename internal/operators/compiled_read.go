package operators

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

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
// compiled from, for messages and reports. The input is copied once into
// a string, and every string of the profile is a slice of that copy.
func UnmarshalCompiled(file string, data []byte) (*Profile, error) {
	return unmarshalCompiled(file, string(data))
}

// unmarshalCompiled reads a compiled profile from s, which its strings
// then share.
func unmarshalCompiled(file, s string) (*Profile, error) {
	r := &reader{s: s}
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
		res.Webhook, res.WebhookUnknown = strings.CutPrefix(res.Webhook, unknownWebhookMark)
		res.Storage = r.bool()
		res.Line = int(r.int())
		res.Maps = r.strs()
		res.Defaults = r.defaults()
		res.StorageVersion, res.Conversion = r.str(), r.str()
		res.ReadDefaults = r.defaults()
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

// defaults reads a list that writer.defaults wrote.
func (r *reader) defaults() []Default {
	n := r.count()
	if n == 0 {
		return nil
	}
	defs := make([]Default, n)
	for j := range defs {
		d := &defs[j]
		d.Path = r.path()
		d.compiled, d.parsed = r.segs(d.Path), d.Path
		d.Type = r.str()
		d.Nullable = r.bool()
		d.Line = int(r.int())
		d.Value = r.value(0)
	}
	return defs
}
