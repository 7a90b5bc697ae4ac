// Package defaults is the fill engine: profile rules compiled per kind into
// a tree, applied to objects with the API server's structural defaulting
// algorithm, with provenance for explain.
package defaults

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/itchyny/gojq"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Origin says which operator release and profile file a rule comes from.
type Origin struct {
	Operator string `json:"operator"`
	Release  string `json:"release"` // the release asked for
	Profile  string `json:"profile"` // the profile version in force
	File     string `json:"file"`
	Source   string `json:"source"`
	// Storage is set on the defaults of the storage version that the API
	// server applies when it reads the object back.
	Storage string `json:"storage,omitempty"`
}

// Filled is one field the engine set.
type Filled struct {
	Path   string `json:"path"`  // concrete path, e.g. .spec.data[0].remoteRef.nullBytePolicy
	Value  any    `json:"value"` //
	Rule   string `json:"rule"`  // the profile rule's path
	Type   string `json:"type"`  // "default" (CRD schema) or "mutation" (webhook)
	Line   int    `json:"line,omitempty"`
	Origin Origin `json:"origin"`
}

// TypeError is an object whose value at a default path has the wrong type.
type TypeError struct {
	Path string
	Want string
	Got  any
	Rule string
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("%s is %s, but the schema says %s (rule %s); the API server would reject this object: fix the manifest", e.Path, manifest.TypeName(e.Got), e.Want, e.Rule)
}

// node is a compiled schema node: only branches that lead to defaults.
type node struct {
	props    []*prop // sorted by name
	items    *node   // list items ([] on a list)
	values   *node   // map values ([] on a map)
	leafType string  // declared type of a defaulted leaf, for checks
}

type prop struct {
	name     string
	child    *node
	def      any
	hasDef   bool
	nullable bool
	rule     *rule
}

type rule struct {
	path   string
	typ    string
	line   int
	origin *Origin
}

type mutation struct {
	path   string
	code   *gojq.Code
	when   *gojq.Code
	value  any
	format string // a string value per list item ({index}, {n})
	insert string // "first" or "last": an entry inserted into the list at path
	key    string // of insert: the field that tells an entry is there
	drop   bool   // remove the field where it holds value
	line   int
	origin *Origin
}

// rewrite is a value admission replaces where it is written: only told.
type rewrite struct {
	path     string
	code     *gojq.Code
	when     *gojq.Code
	from, to any
	reason   string
	line     int
	origin   *Origin
}

type kindRules struct {
	// tree is the kind's schema defaults, built on its first use: a run
	// fills a few kinds of a profile that may describe dozens.
	tree func() *node
	// read is the storage version's defaults the API server adds when it
	// reads the object back (nil when there are none to fill).
	read      func() *node
	mutations []*mutation
	rewrites  []*rewrite
}

// kindKey selects a kind's rules without building a string per object.
type kindKey struct{ apiVersion, kind string }

// Engine applies the compiled rules of the selected profiles.
type Engine struct {
	kinds map[kindKey]*kindRules
	res   []*operators.Resolution
	ctx   context.Context // ends jq evaluation of mutations (Background until WithContext)
}

// WithContext returns an engine whose jq evaluation stops when ctx is done.
func (e *Engine) WithContext(ctx context.Context) *Engine {
	c := *e
	c.ctx = ctx
	return &c
}

// Compile builds an engine from resolved profiles. Two profiles with schema
// defaults for the same apiVersion and kind are an error; profiles of
// webhook mutations only (a cluster's admission, learned with 'profiles
// learn') add their mutations to the kind's rules, in the order selected.
func Compile(res []*operators.Resolution, file func(op, version string) (string, string)) (*Engine, error) {
	e := &Engine{kinds: map[kindKey]*kindRules{}, res: res, ctx: context.Background()}
	owner := map[string]string{} // of a kind's schema defaults
	for _, r := range res {
		p := r.Profile
		f, src := p.File, p.Source
		if file != nil {
			if ff, s := file(p.Operator, p.Version); ff != "" {
				f, src = ff, s
			}
		}
		o := &Origin{Operator: r.Operator, Release: r.Requested, Profile: p.Version, File: f, Source: src}
		for i := range p.Resources {
			rs := &p.Resources[i]
			key := rs.APIVersion() + " " + rs.Kind
			if len(rs.Defaults) > 0 || len(rs.ReadDefaults) > 0 {
				if prev, dup := owner[key]; dup {
					return nil, fmt.Errorf("%s and %s both have schema defaults for %s; select only one of them", prev, r.Ref(), key)
				}
				owner[key] = r.Ref()
			}
			kr, err := compileResource(rs, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
			k := kindKey{rs.APIVersion(), rs.Kind}
			if prev := e.kinds[k]; prev != nil {
				if len(rs.Defaults) == 0 && len(rs.ReadDefaults) == 0 {
					kr.tree, kr.read = prev.tree, prev.read
				}
				kr.mutations = append(prev.mutations, kr.mutations...)
				kr.rewrites = append(prev.rewrites, kr.rewrites...)
			}
			e.kinds[k] = kr
		}
	}
	return e, nil
}

// compileResource checks the resource's paths and compiles its mutations
// now; the defaults tree is built when the kind is first filled.
func compileResource(rs *operators.Resource, o *Origin) (*kindRules, error) {
	defs, err := lazyTree(rs.Defaults, rs.Maps, o)
	if err != nil {
		return nil, err
	}
	kr := &kindRules{tree: defs}
	if rs.FillsOnRead() {
		read := *o
		read.Storage = rs.StorageVersion
		if kr.read, err = lazyTree(rs.ReadDefaults, rs.Maps, &read); err != nil {
			return nil, err
		}
	}
	for i := range rs.Mutations {
		m := &rs.Mutations[i]
		code, err := operators.CompileJQ(m.Path, true)
		if err != nil {
			return nil, err
		}
		mu := &mutation{path: m.Path, code: code, value: m.Value, format: m.Format, insert: m.Insert, key: m.Key, drop: m.Drop, line: m.Line, origin: o}
		if m.When != "" {
			if mu.when, err = operators.CompileJQ(m.When, false); err != nil {
				return nil, err
			}
		}
		kr.mutations = append(kr.mutations, mu)
	}
	for i := range rs.Rewrites {
		x := &rs.Rewrites[i]
		code, err := operators.CompileJQ(x.Path, true)
		if err != nil {
			return nil, err
		}
		rw := &rewrite{path: x.Path, code: code, from: x.From, to: x.To, reason: x.Reason, line: x.Line, origin: o}
		if x.When != "" {
			if rw.when, err = operators.CompileJQ(x.When, false); err != nil {
				return nil, err
			}
		}
		kr.rewrites = append(kr.rewrites, rw)
	}
	return kr, nil
}

// lazyTree checks the paths of defs now and builds their tree when the kind
// is first filled. Paths checked when the profile was read are parsed then.
func lazyTree(defs []operators.Default, maps []string, o *Origin) (func() *node, error) {
	segs := make([][]tree.Seg, len(defs))
	for i := range defs {
		if defs[i].Checked() {
			continue
		}
		var err error
		if segs[i], err = defs[i].Segs(); err != nil {
			return nil, err
		}
	}
	return sync.OnceValue(func() *node {
		for i := range defs {
			if segs[i] == nil {
				segs[i], _ = defs[i].Segs() // checked: cannot fail
			}
		}
		return buildTree(defs, maps, segs, o)
	}), nil
}

// buildTree builds the tree of defaults whose paths are segs.
func buildTree(defs []operators.Default, mapPaths []string, segs [][]tree.Seg, o *Origin) *node {
	maps := operators.ParseMaps(mapPaths)
	// Properties are found through a map while the tree is built and
	// sorted once at the end: linear in the number of rules.
	type propKey struct {
		n    *node
		name string
	}
	index := make(map[propKey]*prop, len(defs))
	parents := map[*node]bool{}
	root := &node{}
	for i := range defs {
		d := &defs[i]
		segs := segs[i]
		n := root
		for j, s := range segs {
			last := j == len(segs)-1
			switch {
			case s.Iter && maps.Has(segs[:j]):
				if n.values == nil {
					n.values = &node{}
				}
				n = n.values
			case s.Iter:
				if n.items == nil {
					n.items = &node{}
				}
				n = n.items
			default:
				k := propKey{n, s.Name}
				p := index[k]
				if p == nil {
					p = &prop{name: s.Name, child: &node{}}
					n.props = append(n.props, p)
					index[k] = p
					parents[n] = true
				}
				if last {
					p.def, p.hasDef, p.nullable = d.Value, true, d.Nullable
					p.rule = &rule{path: d.Path, typ: d.Type, line: d.Line, origin: o}
					p.child.leafType = d.Type
				}
				n = p.child
			}
		}
	}
	for n := range parents {
		sort.Slice(n.props, func(a, b int) bool { return n.props[a].name < n.props[b].name })
	}
	return root
}

// Covers reports whether any selected profile has rules for the kind.
func (e *Engine) Covers(apiVersion, kind string) bool {
	return e.kinds[kindKey{apiVersion, kind}] != nil
}

// Fill applies the rules to obj in place. record, if not nil, is called
// for every field set. Objects of kinds without rules are left alone.
func (e *Engine) Fill(obj map[string]any, record func(Filled)) error {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	kr := e.kinds[kindKey{av, k}]
	if kr == nil {
		return nil
	}
	w := &walk{record: record}
	if err := w.apply(obj, kr.tree()); err != nil {
		return err
	}
	if len(kr.mutations) > 0 {
		// The API server defaults again after mutating webhooks ran.
		changed, err := applyMutations(e.ctx, obj, kr.mutations, record)
		if err != nil {
			return err
		}
		if changed {
			w.path = w.path[:0]
			if err := w.apply(obj, kr.tree()); err != nil {
				return err
			}
		}
	}
	if kr.read == nil {
		return nil
	}
	// Last, what reading the stored object back adds.
	w.path = w.path[:0]
	return w.apply(obj, kr.read())
}

type walk struct {
	path   tree.Path
	record func(Filled)
}

func (w *walk) apply(x any, n *node) error {
	switch x := x.(type) {
	case map[string]any:
		for _, p := range n.props {
			if !p.hasDef {
				continue
			}
			if v, found := x[p.name]; !found || (v == nil && !p.nullable) {
				x[p.name] = runtime.DeepCopyJSONValue(p.def)
				if w.record != nil {
					// The rule's own value: the filled one grows as the
					// children's defaults are filled (each recorded by its
					// own rule), and one field is told once.
					w.emit(p.name, runtime.DeepCopyJSONValue(p.def), p.rule)
				}
			}
		}
		for _, p := range n.props {
			v, found := x[p.name]
			if !found {
				continue
			}
			w.path = append(w.path, p.name)
			if err := w.check(v, p); err != nil {
				return err
			}
			if err := w.apply(v, p.child); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
		}
		if n.values != nil {
			for _, k := range slices.Sorted(maps.Keys(x)) {
				w.path = append(w.path, k)
				if err := w.apply(x[k], n.values); err != nil {
					return err
				}
				w.path = w.path[:len(w.path)-1]
			}
		}
	case []any:
		if n.items != nil {
			for i := range x {
				w.path = append(w.path, i)
				if err := w.apply(x[i], n.items); err != nil {
					return err
				}
				w.path = w.path[:len(w.path)-1]
			}
		}
	}
	return nil
}

// check refuses values whose type cannot hold what the rules below need:
// the API server would reject them, and guessing would hide the mistake.
func (w *walk) check(v any, p *prop) error {
	if v == nil {
		return nil
	}
	n := p.child
	want := ""
	switch {
	case len(n.props) > 0 || n.values != nil:
		if _, ok := v.(map[string]any); !ok {
			want = "an object"
		}
	case n.items != nil:
		if _, ok := v.([]any); !ok {
			want = "a list"
		}
	case n.leafType != "":
		if err := operators.CheckType(n.leafType, v); err != nil {
			want = "of type " + n.leafType
		}
	}
	if want == "" {
		return nil
	}
	r := ""
	if p.rule != nil {
		r = p.rule.path
	} else {
		r = firstRule(n)
	}
	return &TypeError{Path: w.path.String(), Want: want, Got: v, Rule: r}
}

func firstRule(n *node) string {
	for _, p := range n.props {
		if p.rule != nil {
			return p.rule.path
		}
		if r := firstRule(p.child); r != "" {
			return r
		}
	}
	for _, c := range []*node{n.items, n.values} {
		if c != nil {
			if r := firstRule(c); r != "" {
				return r
			}
		}
	}
	return ""
}

func (w *walk) emit(name string, v any, r *rule) {
	w.record(Filled{Path: append(w.path, name).String(), Value: v, Rule: r.path, Type: "default", Line: r.line, Origin: *r.origin})
}
