package operators

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/tree"
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
		w.str(r.Group, r.Version, r.Kind, compiledWebhook(r))
		w.bool(r.Storage)
		w.int(int64(r.Line))
		w.strs(r.Maps)
		if err := w.defaults(r.Defaults); err != nil {
			return nil, err
		}
		w.str(r.StorageVersion, r.Conversion)
		if err := w.defaults(r.ReadDefaults); err != nil {
			return nil, err
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

// defaults writes a list of schema defaults, their parsed paths included.
func (w *writer) defaults(defs []Default) error {
	w.uint(uint64(len(defs)))
	for j := range defs {
		d := &defs[j]
		segs, err := d.Segs()
		if err != nil {
			return fmt.Errorf("%s: %v", d.Path, err)
		}
		w.path(d.Path)
		w.segs(d.Path, segs)
		w.str(d.Type)
		w.bool(d.Nullable)
		w.int(int64(d.Line))
		if err := w.value(d.Value); err != nil {
			return fmt.Errorf("%s: %v", d.Path, err)
		}
	}
	return nil
}

// unknownWebhookMark precedes the webhook name of a resource whose webhook
// defaults are unknown (Resource.WebhookUnknown) in the compiled form: a
// webhook name never starts with it, and the compiled form of every other
// resource stays as it is.
const unknownWebhookMark = "?"

func compiledWebhook(r *Resource) string {
	if r.WebhookUnknown {
		return unknownWebhookMark + r.Webhook
	}
	return r.Webhook
}
