package manifest

import (
	"bytes"
	"errors"
	"fmt"

	yamlv3 "go.yaml.in/yaml/v3"
)

// MaxDepth is how deep a document may nest: an object is level 0, its
// fields level 1, and so on. Kubernetes objects stay far below it (the
// deepest CRD schemas reach about 30 levels); every decode uses it, and the
// kustomize preflight applies it to every file before kustomize reads it.
const MaxDepth = 100

// MaxNestingCost bounds, per byte of YAML, the sum over its mappings of
// the nodes below each one (aliases expanded). kustomize copies every
// mapping's subtree while it reads a file, so that sum is the CPU it
// spends: ordinary manifests and CRDs stay under 1 per byte, while a chain
// of nested mappings costs about its depth per node.
const MaxNestingCost = 8

// ErrNesting is the error for YAML nested too deep, or too costly to walk.
var ErrNesting = errors.New("nested too deep")

// CheckYAMLShape is CheckYAML for YAML that kustomize reads: on top of the
// alias limits it refuses nesting deeper than MaxDepth and mappings nested
// so that walking them costs more than MaxNestingCost per byte. Most files
// are cleared from their text alone (shapeBound); the others are parsed.
func CheckYAMLShape(data []byte, maxExpanded int64) error {
	if bytes.IndexByte(data, '*') < 0 {
		if depth, cost, ok := shapeBound(data); ok && depth <= MaxDepth && cost <= allowedCost(data) {
			return nil
		}
	}
	if maxExpanded <= 0 {
		maxExpanded = DefaultMaxExpandedBytes
	}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	var cost float64
	for doc := 1; ; doc++ {
		var n yamlv3.Node
		if err := dec.Decode(&n); err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("exceeded max depth")) {
				return fmt.Errorf("document %d: %w: more than %d levels, and Kubernetes objects never nest that deep; flatten the data or move it into a string", doc, ErrNesting, MaxDepth)
			}
			return nil // the end, or malformed YAML, which the real parser reports
		}
		if err := checkExpansion(&n, maxExpanded); err != nil {
			return fmt.Errorf("document %d (line %d): %w", doc, n.Line, err)
		}
		s := shapeOf(&n, map[*yamlv3.Node]shape{})
		if s.height > MaxDepth+1 { // +1: the document node
			return fmt.Errorf("document %d (line %d): %w: more than %d levels, and Kubernetes objects never nest that deep; flatten the data or move it into a string", doc, n.Line, ErrNesting, MaxDepth)
		}
		cost += s.cost
		if cost > allowedCost(data) {
			return fmt.Errorf("document %d (line %d): %w: its mappings nest so that reading it would cost %.0f node copies, more than %d per byte of the file; flatten the data or move it into a string",
				doc, n.Line, ErrNesting, cost, MaxNestingCost)
		}
	}
}

func allowedCost(data []byte) float64 {
	return float64(MaxNestingCost*len(data) + 1024)
}

// shape is a node as kustomize sees it once its aliases are expanded:
// nodes in all, collection levels, and the nesting cost.
type shape struct {
	nodes, height, cost float64
}

// shapeOf measures n; anchors are measured once. The recursion is bounded
// by the parser's own depth limit and the alias limits checked first.
func shapeOf(n *yamlv3.Node, memo map[*yamlv3.Node]shape) shape {
	if n == nil {
		return shape{}
	}
	if s, ok := memo[n]; ok {
		return s
	}
	var s shape
	switch n.Kind {
	case yamlv3.AliasNode:
		s = shapeOf(n.Alias, memo)
	case yamlv3.ScalarNode:
		s = shape{nodes: 1}
	default:
		var h float64
		for _, c := range n.Content {
			cs := shapeOf(c, memo)
			s.nodes += cs.nodes
			s.cost += cs.cost
			h = max(h, cs.height)
		}
		s.nodes++
		s.height = h + 1
		if n.Kind == yamlv3.MappingNode {
			s.cost += s.nodes
		}
	}
	memo[n] = s
	return s
}

// shapeBound bounds the collection levels and the nesting cost of data
// from its text alone, without parsing it; ok is false when it cannot
// tell (line breaks other than LF and CR, lines indented past 1,000).
//
// Within a document, a block collection starts at a column where a token
// starts in the indentation and "- ", "? ", ": " indicators that open its
// line, and each block level below a mapping starts further right (a
// sequence may share its key's column, once): with c such columns seen,
// at most 2c block levels, c of them mappings. Flow levels are bounded by
// the "[" and "{" seen so far in the document where a node may start.
// Every node starts on a line and needs an indicator there, but for at
// most one: a line holds at most 2i+1 nodes for i indicators.
func shapeBound(data []byte) (depth, cost float64, ok bool) {
	if bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029")) {
		return 0, 0, false
	}
	const maxColumn = 1000
	var columns [maxColumn + 1]bool
	var cols, flow float64 // columns seen, "[" and "{" seen, in this document
	for len(data) > 0 {
		line := data
		if end := bytes.IndexAny(data, "\r\n"); end >= 0 {
			crlf := data[end] == '\r' && end+1 < len(data) && data[end+1] == '\n'
			line, data = data[:end], data[end+1:]
			if crlf {
				data = data[1:]
			}
		} else {
			data = nil
		}
		if documentMarker(line) {
			columns, cols, flow = [maxColumn + 1]bool{}, 0, 0
		}
		run := 0
		for run < len(line) && (line[run] == ' ' || line[run] == '\t' || line[run] == '-' || line[run] == '?' || line[run] == ':') {
			run++
		}
		if run > maxColumn {
			return 0, 0, false
		}
		for p := 0; p <= run; p++ {
			blank := p < len(line) && (line[p] == ' ' || line[p] == '\t')
			if !blank && (p == 0 || line[p-1] == ' ' || line[p-1] == '\t') && !columns[p] {
				columns[p] = true
				cols++
			}
		}
		properties := bytes.ContainsAny(line, "&!")
		var ind float64
		prev := byte(0) // the last byte before i that is not blank
		for i, c := range line {
			switch c {
			case '[', '{':
				if properties || prev == 0 || bytes.IndexByte([]byte("-?:,[{"), prev) >= 0 {
					flow++
				}
				ind++
			case ',':
				ind++
			case '-', '?', ':':
				next := i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t'
				if next || (c == ':' && i > 0 && (line[i-1] == '"' || line[i-1] == '\'')) {
					ind++
				}
			}
			if c != ' ' && c != '\t' {
				prev = c
			}
		}
		depth = max(depth, 2*cols+flow+1)
		cost += (2*ind + 1) * (cols + 2 + flow)
	}
	return depth, cost, true
}

// documentMarker reports whether line starts or ends a document.
func documentMarker(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) && !bytes.HasPrefix(line, []byte("...")) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t'
}
