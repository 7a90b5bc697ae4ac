package learn

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/itchyny/gojq"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// KindVariations is the kind of a variations file ('profiles learn --vary').
const KindVariations = "LearnVariations"

// Limits of a variations file: generated inputs are dry-run twice each.
const (
	maxVaryBytes  = 1 << 20
	maxGenerated  = 2000
	maxConditions = 50
)

// Variations is a maintainer's description of the inputs to generate from
// the seed manifests, so that what is learned holds beyond them: every
// seed is dry-run as written, then once per value of every dimension with
// that one field changed and everything else kept.
type Variations struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Vary       []Dimension `json:"vary"`
	// Conditions are jq expressions on the object that may decide a
	// default (a value derived from several fields, such as whether a
	// Cluster is a replica). The learner uses one in a rule's 'when' only
	// when its value decides the outcome of every generated input, as it
	// does with a sibling field.
	Conditions []string `json:"conditions,omitempty"`

	conds []*gojq.Code
}

// Dimension is one field and the values it is tried with.
type Dimension struct {
	// Path is a field path without list steps (.spec.imageName); missing
	// parents are created.
	Path string `json:"path"`
	// Values: null removes the field.
	Values []any `json:"values"`
	// Kinds limits the dimension to seeds of these kinds (every seed when
	// empty): an operator's kinds rarely share the fields worth varying. An
	// entry is a kind (Task) or an apiVersion and kind (tekton.dev/v1 Task).
	Kinds []string `json:"kinds,omitempty"`

	segs []tree.Seg
}

// ParseVariations reads and checks a variations file.
func ParseVariations(name string, b []byte) (*Variations, error) {
	if len(b) > maxVaryBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxVaryBytes)
	}
	v := &Variations{}
	if err := yaml.UnmarshalStrict(b, v); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if v.APIVersion != operators.APIVersion || v.Kind != KindVariations {
		return nil, fmt.Errorf("%s: apiVersion and kind must be %s %s", name, operators.APIVersion, KindVariations)
	}
	for i := range v.Vary {
		d := &v.Vary[i]
		segs, err := tree.ParsePath(d.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: vary[%d].path: %v", name, i, err)
		}
		if len(segs) == 0 || slices.ContainsFunc(segs, func(s tree.Seg) bool { return s.Iter }) {
			return nil, fmt.Errorf("%s: vary[%d].path %s: a field path without [] is needed", name, i, d.Path)
		}
		if len(d.Values) == 0 {
			return nil, fmt.Errorf("%s: vary[%d] (%s): no values", name, i, d.Path)
		}
		// Numbers as the manifests' decoder reads them (integers as
		// int64, not float64): a generated input is checked against the
		// schema like any manifest.
		j, err := json.Marshal(d.Values)
		if err == nil {
			err = utiljson.Unmarshal(j, &d.Values)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: vary[%d] (%s): %v", name, i, d.Path, err)
		}
		d.segs = segs
	}
	if len(v.Conditions) > maxConditions {
		return nil, fmt.Errorf("%s: more than %d conditions", name, maxConditions)
	}
	for i, c := range v.Conditions {
		code, err := operators.CompileJQ(c, false)
		if err != nil {
			return nil, fmt.Errorf("%s: conditions[%d]: %v", name, i, err)
		}
		v.conds = append(v.conds, code)
	}
	return v, nil
}

// Generate returns the seeds followed by their variations, each with one
// dimension set to one of its values; a variation equal to its seed (or to
// an earlier one) is left out. Names get a suffix (-v1, -v2...) so that
// every input is an object of its own. Deterministic: same seeds, same
// inputs.
func (v *Variations) Generate(seeds []manifest.Object) ([]manifest.Object, error) {
	out := slices.Clone(seeds)
	seen := map[string]bool{}
	for _, s := range seeds {
		seen[jsonText(s.Data)] = true
	}
	for _, s := range seeds {
		n := 0
		kind, _ := s.Data["kind"].(string)
		apiVersion, _ := s.Data["apiVersion"].(string)
		for _, d := range v.Vary {
			if len(d.Kinds) > 0 && !slices.Contains(d.Kinds, kind) && !slices.Contains(d.Kinds, apiVersion+" "+kind) {
				continue
			}
			for _, val := range d.Values {
				obj := runtime.DeepCopyJSON(s.Data)
				setField(obj, d.segs, val)
				k := jsonText(obj)
				if seen[k] {
					continue
				}
				seen[k] = true
				n++
				if md, ok := obj["metadata"].(map[string]any); ok {
					if name, ok := md["name"].(string); ok {
						md["name"] = name + "-v" + strconv.Itoa(n)
					}
				}
				g := s
				g.Data = obj
				g.Origin = "varied " + d.Path + " = " + jsonText(val)
				out = append(out, g)
				if len(out) > maxGenerated {
					return nil, fmt.Errorf("the variations make more than %d inputs: vary fewer fields or values, or use fewer seeds", maxGenerated)
				}
			}
		}
	}
	return out, nil
}

// setField sets the field at segs in obj to val (creating missing parent
// objects), or removes it when val is nil.
func setField(obj map[string]any, segs []tree.Seg, val any) {
	m := obj
	for _, s := range segs[:len(segs)-1] {
		next, ok := m[s.Name].(map[string]any)
		if !ok {
			if val == nil {
				return
			}
			next = map[string]any{}
			m[s.Name] = next
		}
		m = next
	}
	last := segs[len(segs)-1].Name
	if val == nil {
		delete(m, last)
		return
	}
	m[last] = runtime.DeepCopyJSONValue(val)
}

// condition is one of the variations' conditions, evaluated per object.
type condition struct {
	expr   string
	values []string // per observation: the JSON text of its value
}

// evalConditions evaluates the conditions on every observation's sent
// object; an expression that fails on some object is left out.
func (v *Variations) evalConditions(obs []Observation) []condition {
	if v == nil {
		return nil
	}
	var out []condition
next:
	for i, code := range v.conds {
		c := condition{expr: v.Conditions[i], values: make([]string, len(obs))}
		for j := range obs {
			it := code.Run(jqValue(obs[j].Sent))
			x, ok := it.Next()
			if !ok {
				x = nil
			}
			if _, isErr := x.(error); isErr {
				continue next
			}
			c.values[j] = jsonText(x)
		}
		out = append(out, c)
	}
	return out
}

// Touched lists, for every object field admission added (outside lists),
// the first input that got it with the field present and empty ({}): what
// admission then fills inside it is learned too, so a manifest that
// states the object without its fields is filled.
func Touched(obs []Observation) []Variant {
	b := observeAll(obs, nil)
	var out []Variant
	seen := map[string]bool{}
	for _, g := range b.sortedGroups() {
		if hasIter(g.gen) || seen[g.path] {
			continue
		}
		for i := range obs {
			p := make(tree.Path, len(g.gen))
			for j, s := range g.gen {
				p[j] = s.Name
			}
			v, ok := b.adds[i][p.String()]
			if _, isMap := v.(map[string]any); !ok || !isMap {
				continue
			}
			obj := runtime.DeepCopyJSON(obs[i].Sent)
			setField(obj, g.gen, map[string]any{})
			seen[g.path] = true
			out = append(out, Variant{ID: obs[i].ID + " (with " + g.path + ": {})", Of: i, Object: obj})
			break
		}
	}
	return out
}

// jqValue converts int64 (which gojq does not take) to int, in a copy.
func jqValue(x any) any {
	return manifest.MapLeaves(x, func(v any) any {
		if i, ok := v.(int64); ok {
			return int(i)
		}
		return v
	})
}
