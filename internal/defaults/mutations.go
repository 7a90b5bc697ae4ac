package defaults

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// applyMutations sets each mutation's value at every path its jq expression
// selects where the field is absent (or null) and its parent exists.
// Conditions see the object as the webhook does, before any mutation: one
// rule's fill never decides another's condition.
func applyMutations(ctx context.Context, obj map[string]any, ms []*mutation, record func(Filled)) (bool, error) {
	changed := false
	before := jqValue(obj)
	for _, m := range ms {
		in := jqValue(obj)
		if m.when != nil {
			v, ok := m.when.RunWithContext(ctx, before).Next()
			if !ok {
				continue
			}
			if err, isErr := v.(error); isErr {
				return false, fmt.Errorf("mutation %s: when: %v", m.path, err)
			}
			if v == nil || v == false {
				continue
			}
		}
		var paths []tree.Path
		iter := m.code.RunWithContext(ctx, in)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if err, isErr := v.(error); isErr {
				return false, fmt.Errorf("mutation %s: %v", m.path, err)
			}
			if p, ok := v.([]any); ok && len(p) > 0 {
				paths = append(paths, p)
			}
		}
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
			if v, found := pm[key]; found && v != nil {
				continue
			}
			pm[key] = runtime.DeepCopyJSONValue(m.value)
			changed = true
			if record != nil {
				record(Filled{Path: p.String(), Value: pm[key], Rule: m.path, Type: "mutation", Line: m.line, Origin: *m.origin})
			}
		}
	}
	return changed, nil
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
