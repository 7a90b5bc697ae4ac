package defaults

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// applyMutations sets each mutation's value at every path its jq expression
// selects where the field is absent (or null) and its parent exists; an
// insert rule adds its entry to a list that lacks it, a drop rule removes
// a zero value admission drops. Conditions see the object as the webhook
// does, before any mutation: one rule's fill never decides another's
// condition.
func applyMutations(ctx context.Context, obj map[string]any, ms []*mutation, record func(Filled)) (bool, error) {
	changed := false
	before := jqValue(obj)
	for _, m := range ms {
		if m.when != nil {
			ok, err := holds(ctx, m.when, before)
			if err != nil {
				return false, fmt.Errorf("mutation %s: when: %v", m.path, err)
			}
			if !ok {
				continue
			}
		}
		paths, err := selected(ctx, m.code, jqValue(obj))
		if err != nil {
			return false, fmt.Errorf("mutation %s: %v", m.path, err)
		}
		filled := map[string]int{} // per list: items this rule filled ({n})
		for _, p := range paths {
			parent, ok := p[:len(p)-1].Lookup(obj)
			if !ok || parent == nil {
				continue
			}
			key, ok := p[len(p)-1].(string)
			pm, isMap := parent.(map[string]any)
			if !ok || !isMap {
				continue
			}
			v, found := pm[key]
			rec := Filled{Path: p.String(), Rule: m.path, Type: "mutation", Line: m.line, Origin: *m.origin}
			switch {
			case m.insert != "":
				l, isList := v.([]any)
				if !isList || hasEntry(l, m.key, m.value) {
					continue
				}
				entry := runtime.DeepCopyJSONValue(m.value)
				at := 0
				if m.insert == "last" {
					at = len(l)
				}
				pm[key] = append(l[:at:at], append([]any{entry}, l[at:]...)...)
				rec.Path, rec.Value = p.Child(at).String(), entry
			case m.drop:
				if !found || jsonText(v) != jsonText(m.value) {
					continue
				}
				delete(pm, key)
				rec.Type, rec.Value = "drop", v
			default:
				if found && v != nil {
					continue
				}
				if m.format != "" {
					pm[key] = format(m.format, p, filled)
				} else {
					pm[key] = runtime.DeepCopyJSONValue(m.value)
				}
				rec.Value = pm[key]
			}
			changed = true
			if record != nil {
				record(rec)
			}
		}
	}
	return changed, nil
}

// holds runs a condition on v: true unless it yields nothing, null or false.
func holds(ctx context.Context, code *gojq.Code, v any) (bool, error) {
	x, ok := code.RunWithContext(ctx, v).Next()
	if !ok {
		return false, nil
	}
	if err, isErr := x.(error); isErr {
		return false, err
	}
	return x != nil && x != false, nil
}

// selected runs a path expression on v: the paths it yields.
func selected(ctx context.Context, code *gojq.Code, v any) ([]tree.Path, error) {
	var paths []tree.Path
	iter := code.RunWithContext(ctx, v)
	for {
		x, ok := iter.Next()
		if !ok {
			return paths, nil
		}
		if err, isErr := x.(error); isErr {
			return nil, err
		}
		if p, ok := x.([]any); ok && len(p) > 0 {
			paths = append(paths, p)
		}
	}
}

// hasEntry says whether list l has an entry whose field key equals the
// one of entry.
func hasEntry(l []any, key string, entry any) bool {
	want := jsonText(entry.(map[string]any)[key])
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && jsonText(m[key]) == want {
			return true
		}
	}
	return false
}

// format makes the value of a Format rule at p: {index} is the index of
// the innermost list item in p, {n} how many items of that list the rule
// filled before (counted in filled).
func format(f string, p tree.Path, filled map[string]int) string {
	j := -1
	for i := len(p) - 1; i >= 0; i-- {
		if _, ok := p[i].(int); ok {
			j = i
			break
		}
	}
	if j < 0 {
		return f
	}
	list := p[:j].String()
	n := filled[list]
	filled[list]++
	return strings.NewReplacer("{index}", strconv.Itoa(p[j].(int)), "{n}", strconv.Itoa(n)).Replace(f)
}

// jsonText is a value's canonical JSON, to compare values of either
// number type.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
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

// Rewrite is a value written in an object that admission stores as
// another value: cmp-defaults never changes it, it tells.
type Rewrite struct {
	Path   string `json:"path"`
	From   any    `json:"written"`
	To     any    `json:"stored"`
	Reason string `json:"reason,omitempty"`
	Rule   string `json:"rule"`
	Origin Origin `json:"origin"`
}

// Rewrites lists where obj holds a value a selected profile's rewrite
// rule says admission replaces.
func (e *Engine) Rewrites(obj map[string]any) ([]Rewrite, error) {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	kr := e.kinds[kindKey{av, k}]
	if kr == nil || len(kr.rewrites) == 0 {
		return nil, nil
	}
	in := jqValue(obj)
	var out []Rewrite
	for _, r := range kr.rewrites {
		if r.when != nil {
			ok, err := holds(e.ctx, r.when, in)
			if err != nil {
				return nil, fmt.Errorf("rewrite %s: when: %v", r.path, err)
			}
			if !ok {
				continue
			}
		}
		paths, err := selected(e.ctx, r.code, in)
		if err != nil {
			return nil, fmt.Errorf("rewrite %s: %v", r.path, err)
		}
		for _, p := range paths {
			if v, ok := p.Lookup(obj); ok && jsonText(v) == jsonText(r.from) {
				out = append(out, Rewrite{Path: p.String(), From: v, To: r.to, Reason: r.reason, Rule: r.path, Origin: *r.origin})
			}
		}
	}
	return out, nil
}

// RewriteWarnings are the warnings, one per rewritten value, for an
// object read from a source: where, what was written, what is stored and
// what to do.
func (e *Engine) RewriteWarnings(o manifest.Object) ([]string, error) {
	rs, err := e.Rewrites(o.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", o.Where(), o.ID(), err)
	}
	var out []string
	for _, r := range rs {
		why := ""
		if r.Reason != "" {
			why = " (" + r.Reason + ")"
		}
		out = append(out, fmt.Sprintf("%s: %s: %s: you wrote %s, and %s@%s's admission stores %s%s; cmp-defaults never changes a value you wrote: write %s in Git, or Argo CD shows this field OutOfSync",
			o.Where(), o.ID(), r.Path, jsonText(r.From), r.Origin.Operator, strings.TrimPrefix(r.Origin.Release, "v"), jsonText(r.To), why, jsonText(r.To)))
	}
	return out, nil
}
