package argocd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/cmp-defaults/cmp-defaults/internal/glob"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// jqTimeout is Argo CD's default limit for one jq patch.
const jqTimeout = time.Second

// GroupKind splits an object's apiVersion into its group, with its kind.
func GroupKind(obj map[string]any) (string, string) {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	g := ""
	if i := strings.LastIndex(av, "/"); i >= 0 {
		g = av[:i]
	}
	return g, k
}

// clusterScoped lists common kinds without a namespace. Argo CD learns the
// scope from the cluster; offline, these kinds do not take the
// Application's destination namespace.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"CustomResourceDefinition": true, "StorageClass": true, "PriorityClass": true, "IngressClass": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true, "APIService": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true, "RuntimeClass": true,
	"ClusterIssuer": true, "ClusterSecretStore": true, "ClusterExternalSecret": true, "ClusterPushSecret": true,
	"ClusterGenerator": true,
}

// Namespace is the namespace Argo CD gives obj: its own, else dest for a
// kind that is not one of the common cluster-scoped kinds.
func Namespace(obj map[string]any, dest string) string {
	if ns := Meta(obj, "namespace"); ns != "" {
		return ns
	}
	if _, k := GroupKind(obj); clusterScoped[k] {
		return ""
	}
	return dest
}

// MatchGlob is Argo CD's util/glob.Match: a gobwas glob without separators
// (matched in linear time: internal/glob); a pattern that does not compile
// matches nothing.
func MatchGlob(pattern, text string) bool {
	if pattern == text {
		return true
	}
	g, err := glob.Compile(pattern)
	if err != nil {
		return false
	}
	return g.Match(text)
}

// Matches reports whether the rule applies to obj, as Argo CD's ignore
// normalizer decides: group and kind are globs, name and namespace must be
// equal when set. ApplicationSet fields still holding {{templates}} match
// any value.
func (r *Rule) Matches(obj map[string]any) bool {
	g, k := GroupKind(obj)
	if !templated(r.Group) && !MatchGlob(r.Group, g) {
		return false
	}
	if !templated(r.Kind) && !MatchGlob(r.Kind, k) {
		return false
	}
	if r.Name != "" && !templated(r.Name) && r.Name != Meta(obj, "name") {
		return false
	}
	if r.Namespace != "" && !templated(r.Namespace) {
		ns := Meta(obj, "namespace")
		if ns == "" && !clusterScoped[k] {
			ns = r.DefaultNamespace
		}
		if r.Namespace != ns {
			return false
		}
	}
	return true
}

// JQPath is a compiled jqPathExpression: del(expr) as Argo CD runs it, and
// path(expr) to learn what it deletes (jq defines del(f) as
// delpaths([path(f)])).
type JQPath struct {
	del, path *gojq.Code
}

func CompileJQ(expr string) (*JQPath, error) {
	if _, err := gojq.Parse(expr); err != nil {
		return nil, err
	}
	compile := func(wrap string) (*gojq.Code, error) {
		q, err := gojq.Parse(fmt.Sprintf(wrap, expr))
		if err != nil {
			return nil, err
		}
		return gojq.Compile(q)
	}
	del, err := compile("del(%s)")
	if err != nil {
		return nil, err
	}
	path, err := compile("path(%s)")
	if err != nil {
		return nil, err
	}
	return &JQPath{del: del, path: path}, nil
}

// Paths runs the expression on doc (JSON-decoded, as Argo CD passes it).
// An error means Argo CD's patch fails on this object and removes nothing.
func (e *JQPath) Paths(doc map[string]any) ([]tree.Path, error) {
	ctx, cancel := context.WithTimeout(context.Background(), jqTimeout)
	defer cancel()
	it := e.del.RunWithContext(ctx, doc)
	v, ok := it.Next()
	if !ok {
		return nil, errors.New("JQ patch did not return any data")
	}
	if err, isErr := v.(error); isErr {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("JQ patch execution timed out (%v)", jqTimeout)
		}
		return nil, fmt.Errorf("JQ patch returned error: %w", err)
	}
	var out []tree.Path
	it = e.path.RunWithContext(ctx, doc)
	for {
		v, ok := it.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			return nil, fmt.Errorf("JQ patch returned error: %w", err)
		}
		p, ok := v.([]any)
		if !ok {
			continue
		}
		out = append(out, expandSlices(doc, p)...)
	}
	return out, nil
}

// expandSlices turns path steps jq writes for slices ({"start":..,"end":..})
// into the indexes they cover, and float indexes into ints.
func expandSlices(doc any, p []any) []tree.Path {
	for i, s := range p {
		switch s := s.(type) {
		case float64:
			if s == math.Trunc(s) {
				q := append(append([]any{}, p[:i]...), int(s))
				return expandSlices(doc, append(q, p[i+1:]...))
			}
			return nil
		case map[string]any:
			v, _ := tree.Path(p[:i]).Lookup(doc)
			l, _ := v.([]any)
			start, end := sliceBound(s["start"], 0, len(l)), sliceBound(s["end"], len(l), len(l))
			var out []tree.Path
			for j := start; j < end; j++ {
				q := append(append([]any{}, p[:i]...), j)
				out = append(out, expandSlices(doc, append(q, p[i+1:]...))...)
			}
			return out
		}
	}
	return []tree.Path{p}
}

func sliceBound(v any, def, n int) int {
	var i int
	switch v := v.(type) {
	case int:
		i = v
	case float64:
		i = int(math.Floor(v))
	default:
		return def
	}
	if i < 0 {
		i += n
	}
	return max(0, min(i, n))
}

// Pointer resolves an RFC 6901 JSON pointer against doc as a JSON patch
// "remove" would: the path and whether it exists. A pointer to a missing
// field is an error for Argo CD (the patch removes nothing).
func Pointer(doc any, ptr string) (tree.Path, bool, error) {
	if ptr == "" || ptr[0] != '/' {
		return nil, false, fmt.Errorf("%q is not a JSON pointer: it must start with '/'", ptr)
	}
	var path tree.Path
	x, exists := doc, true
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if !exists {
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 {
				path = append(path, i) // most likely a list index
			} else {
				path = append(path, tok)
			}
			continue
		}
		switch v := x.(type) {
		case map[string]any:
			path = append(path, tok)
			x, exists = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil {
				return nil, false, fmt.Errorf("%q: %q is not an index into a list", ptr, tok)
			}
			if i < 0 && i >= -len(v) {
				i += len(v) // json-patch v4 takes negative indexes
			}
			if i < 0 || i >= len(v) {
				path = append(path, i)
				exists = false
				continue
			}
			path = append(path, i)
			x = v[i]
		default:
			path = append(path, tok)
			exists = false
		}
	}
	return path, exists, nil
}

// JSONDoc is obj as Argo CD's normalizer sees it: marshalled and decoded
// again into plain JSON values (numbers as float64).
func JSONDoc(obj map[string]any) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	err = json.Unmarshal(b, &doc)
	return doc, err
}
