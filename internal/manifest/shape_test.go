package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
)

func exactShape(t *testing.T, data []byte) (height, cost float64) {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var n yamlv3.Node
		if err := dec.Decode(&n); err != nil {
			return height, cost
		}
		s := shapeOf(&n, map[*yamlv3.Node]shape{})
		height, cost = max(height, s.height), cost+s.cost
	}
}

// randomValue nests maps and lists up to depth levels.
func randomValue(r *rand.Rand, depth int) any {
	if depth == 0 || r.Intn(4) == 0 {
		return []any{"x", 1, "a: b", "[c]", "{d}", "- e", true}[r.Intn(7)]
	}
	if r.Intn(2) == 0 {
		m := map[string]any{}
		for i := r.Intn(3); i >= 0; i-- {
			m[fmt.Sprintf("k%d", r.Intn(9))] = randomValue(r, depth-1)
		}
		return m
	}
	var l []any
	for i := r.Intn(3); i >= 0; i-- {
		l = append(l, randomValue(r, depth-1))
	}
	return l
}

// The text bound is never below the shape the parser sees, in block,
// flow and JSON style.
func TestShapeBoundIsABound(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 600; i++ {
		v := randomValue(r, 1+r.Intn(12))
		var docs [][]byte
		var block bytes.Buffer
		enc := yamlv3.NewEncoder(&block)
		enc.SetIndent(1 + r.Intn(4))
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, block.Bytes())
		j, _ := json.Marshal(v)
		docs = append(docs, j)
		ji, _ := json.MarshalIndent(v, "", " ")
		docs = append(docs, ji)
		var n yamlv3.Node
		if err := n.Encode(v); err == nil {
			setFlow(&n, r)
			if out, err := yamlv3.Marshal(&n); err == nil {
				docs = append(docs, out)
			}
		}
		for _, data := range docs {
			h, c := exactShape(t, data)
			d, bc, ok := shapeBound(data)
			if ok && (d < h || bc < c) {
				t.Fatalf("bound depth %v cost %v below the exact %v, %v for:\n%s", d, bc, h, c, data)
			}
		}
	}
}

// setFlow writes some collections in flow style.
func setFlow(n *yamlv3.Node, r *rand.Rand) {
	if (n.Kind == yamlv3.MappingNode || n.Kind == yamlv3.SequenceNode) && r.Intn(3) == 0 {
		n.Style = yamlv3.FlowStyle
	}
	for _, c := range n.Content {
		setFlow(c, r)
	}
}

func TestCheckYAMLShape(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  x: "
	for _, tc := range []struct {
		name, data, want string
	}{
		{"flat", cm + "1\n", ""},
		{"98 levels", cm + strings.Repeat("[", 98) + strings.Repeat("]", 98) + "\n", ""},
		{"101 levels", cm + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", "more than 100 levels"},
		{"9,000 levels of mappings", cm + strings.Repeat("{a: ", 9000) + strings.Repeat("}", 9000) + "\n", "more than 100 levels"},
		{"9,000 levels of block sequences", "x:\n" + strings.Repeat("- ", 9000) + "1\n", "more than 100 levels"},
		{"deep through aliases", "a: &a [1]\n" + func() string {
			var b strings.Builder
			for i := 1; i < 150; i++ {
				fmt.Fprintf(&b, "a%d: &a%d [*a%s]\n", i, i, map[bool]string{true: "", false: fmt.Sprint(i - 1)}[i == 1])
			}
			return b.String()
		}(), "more than 100 levels"},
		{"costly under the limit", strings.Repeat("---\n"+cm+strings.Repeat("{a: ", 60)+strings.Repeat("}", 60)+"\n", 20), "per byte of the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckYAMLShape([]byte(tc.data), 0)
			if tc.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrNesting) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
