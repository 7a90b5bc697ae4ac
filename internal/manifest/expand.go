package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "go.yaml.in/yaml/v3"
)

// DefaultMaxExpandedBytes bounds what one YAML file may grow to once its
// aliases are expanded (the size of its scalars and keys).
const DefaultMaxExpandedBytes = 64 << 20

// ErrAliasing is the error for YAML whose aliases expand too far.
var ErrAliasing = errors.New("excessive aliasing")

// Expansion measures a YAML stream as it will be after alias expansion,
// without expanding it: every alias is counted as a copy of its anchor.
type Expansion struct {
	Nodes   float64 // nodes decoded, aliases included
	Aliased float64 // nodes decoded as part of an alias's expansion
	Bytes   float64 // bytes of scalars and keys
}

// CheckYAML refuses a YAML stream whose alias expansion would be large:
// more than max bytes (DefaultMaxExpandedBytes when max <= 0), or a share of
// aliases among decoded nodes that yaml/v2 (kubectl's parser) calls
// excessive. It parses the stream into nodes, which keep aliases as
// references, so the check costs about as much as the text. Text without
// '*' has no alias and is accepted at once; text that is not YAML is left
// to the real parser, which reports it.
func CheckYAML(data []byte, max int64) error {
	return eachExpansion(data, max, func(doc int, n *yamlv3.Node, err error) error {
		return fmt.Errorf("document %d (line %d): %w", doc, n.Line, err)
	})
}

// checkChunk is CheckYAML for one chunk of a stream, errors without a location.
func checkChunk(data []byte, max int64) error {
	return eachExpansion(data, max, func(_ int, _ *yamlv3.Node, err error) error { return err })
}

// eachExpansion measures every document of data and hands the first one
// over the limits to fail.
func eachExpansion(data []byte, max int64, fail func(doc int, n *yamlv3.Node, err error) error) error {
	if bytes.IndexByte(data, '*') < 0 {
		return nil
	}
	if max <= 0 {
		max = DefaultMaxExpandedBytes
	}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		var n yamlv3.Node
		if err := dec.Decode(&n); err != nil {
			return nil // the end, or malformed YAML, which the real parser reports
		}
		if err := checkExpansion(&n, max); err != nil {
			return fail(doc, &n, err)
		}
	}
}

func checkExpansion(n *yamlv3.Node, max int64) error {
	e := measure(n, map[*yamlv3.Node]Expansion{}, 0)
	if e.Bytes > float64(max) {
		return fmt.Errorf("%w: its aliases expand to more than %d bytes; write the values out instead of repeating an anchor", ErrAliasing, max)
	}
	if e.Aliased > 100 && e.Nodes > 1000 && e.Aliased/e.Nodes > allowedAliasRatio(e.Nodes) {
		return fmt.Errorf("%w: %.0f of %.0f decoded nodes come from aliases", ErrAliasing, e.Aliased, e.Nodes)
	}
	return nil
}

// measure adds up n as decoding would see it; anchors are measured once.
func measure(n *yamlv3.Node, memo map[*yamlv3.Node]Expansion, depth int) Expansion {
	if n == nil || depth > 10000 {
		return Expansion{}
	}
	if e, ok := memo[n]; ok {
		return e
	}
	var e Expansion
	switch n.Kind {
	case yamlv3.AliasNode:
		// yaml/v2 counts every node decoded below an alias as aliased.
		t := measure(n.Alias, memo, depth+1)
		e = Expansion{Nodes: t.Nodes, Aliased: t.Nodes, Bytes: t.Bytes}
	case yamlv3.ScalarNode:
		e.Bytes = float64(len(n.Value))
	default:
		for _, c := range n.Content {
			ce := measure(c, memo, depth+1)
			e.Nodes += ce.Nodes
			e.Aliased += ce.Aliased
			e.Bytes += ce.Bytes + 1
		}
	}
	e.Nodes++
	memo[n] = e
	return e
}

// allowedAliasRatio is yaml/v2's (and yaml/v3's) limit on the share of
// nodes decoded through aliases, which grows stricter with size.
func allowedAliasRatio(nodes float64) float64 {
	const low, high = 400000, 4000000
	switch {
	case nodes <= low:
		return 0.99
	case nodes >= high:
		return 0.10
	default:
		return 0.99 - 0.89*((nodes-low)/(high-low))
	}
}

func isDuplicateKeys(te *yamlv2.TypeError) bool {
	for _, e := range te.Errors {
		if !strings.Contains(e, "already set in map") {
			return false
		}
	}
	return len(te.Errors) > 0
}

// lastWins decodes document i of data without strict mode.
func lastWins(data []byte, i int) (any, error) {
	dec := yamlv2.NewDecoder(bytes.NewReader(data))
	var v any
	for j := 0; j <= i; j++ {
		v = nil
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// duplicate is a key that repeats an earlier key of its mapping.
type duplicate struct {
	line int // 1-based, within the chunk
	key  string
}

// duplicates lists the keys that repeat an earlier key of the same mapping
// in document i, in one pass. Merge keys (<<) are not duplicates:
// overriding a merged key is what they are for.
func duplicates(data []byte, i int) []duplicate {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	var n yamlv3.Node
	for j := 0; j <= i; j++ {
		n = yamlv3.Node{}
		if err := dec.Decode(&n); err != nil {
			return nil
		}
	}
	var dups []duplicate
	seen := map[*yamlv3.Node]bool{}
	var walk func(n *yamlv3.Node)
	walk = func(n *yamlv3.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Kind == yamlv3.MappingNode {
			keys := map[string]bool{}
			for k := 0; k+1 < len(n.Content); k += 2 {
				key := n.Content[k]
				if key.Kind == yamlv3.ScalarNode && key.Value != "<<" {
					if keys[key.Value] {
						dups = append(dups, duplicate{key.Line, key.Value})
					}
					keys[key.Value] = true
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&n)
	return dups
}
