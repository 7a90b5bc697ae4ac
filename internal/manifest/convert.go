package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// The fast path decodes YAML with the same parser sigs.k8s.io/yaml (and so
// kubectl and Argo CD) use, go.yaml.in/yaml/v2, and converts the result
// straight to the values that sigs.k8s.io/yaml.YAMLToJSON followed by
// k8s.io/apimachinery/pkg/util/json.Unmarshal give, without the JSON text
// in between. Encoding likewise hands the values straight to yaml/v2, which
// sigs.k8s.io/yaml.Marshal reaches through a JSON round trip. fast_test.go
// proves both equal to the library path on fuzzed input.

var errDepth = errors.New("nesting too deep")

// keyCollision is two map keys of different YAML types (08 and 8, or true
// and "true") that JSON would turn into the same string.
type keyCollision struct{ key string }

func (e *keyCollision) Error() string {
	return fmt.Sprintf("two keys of one mapping both read as %q (for example 08 and 8, or true and \"true\"); quote the keys you mean", e.key)
}

// jsonValue converts a yaml/v2 value the way YAMLToJSON + json.Marshal +
// utiljson.Unmarshal would.
func jsonValue(v any, depth, maxDepth int) (any, error) {
	if maxDepth > 0 && depth > maxDepth {
		return nil, errDepth
	}
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, val := range v {
			ks, err := keyString(k, val)
			if err != nil {
				return nil, err
			}
			if _, dup := m[ks]; dup {
				// sigs.k8s.io/yaml keeps one of them at random (map order);
				// refuse instead, so that output stays deterministic.
				return nil, &keyCollision{ks}
			}
			c, err := jsonValue(val, depth+1, maxDepth)
			if err != nil {
				return nil, err
			}
			m[ks] = c
		}
		return m, nil
	case []any:
		l := make([]any, len(v))
		for i, val := range v {
			c, err := jsonValue(val, depth+1, maxDepth)
			if err != nil {
				return nil, err
			}
			l[i] = c
		}
		return l, nil
	case string:
		return validUTF8(v), nil
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case uint64:
		return float64(v), nil // beyond int64: JSON keeps it as a float
	case float64:
		return jsonNumber(v)
	case bool, nil:
		return v, nil
	}
	return nil, fmt.Errorf("unsupported YAML value of type %T", v)
}

// keyString is YAMLToJSON's rule for non-string map keys.
func keyString(k, v any) (string, error) {
	switch k := k.(type) {
	case string:
		return validUTF8(k), nil
	case int:
		return strconv.Itoa(k), nil
	case int64:
		return strconv.FormatInt(k, 10), nil
	case float64:
		s := strconv.FormatFloat(k, 'g', -1, 32)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return validUTF8(s), nil
	case bool:
		if k {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "", errors.New("a mapping has a null key (~, null or an empty key); quote the key if it is meant as text")
	}
	return "", fmt.Errorf("unsupported map key of type: %s, key: %+#v, value: %+#v", reflect.TypeOf(k), k, v)
}

// jsonNumber is what a float64 becomes after encoding/json writes it and
// utiljson reads it back: integral values that JSON prints without an
// exponent and that fit int64 become int64.
func jsonNumber(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		// encoding/json prints the shortest digits that round-trip, padded
		// with zeros; utiljson reads those digits as an int64 if they fit.
		if n, err := strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64); err == nil {
			return n, nil
		}
	}
	return f, nil
}

// validUTF8 replaces each invalid byte by U+FFFD, as encoding/json does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// yamlReady prepares a value for the yaml/v2 encoder so that it prints
// what sigs.k8s.io/yaml.Marshal prints. Only floats differ (JSON writes
// 1e19 as 10000000000000000000, which YAML then reads as an integer), so
// objects holding floats get a copy whose floats print the JSON way.
func yamlReady(v any) any {
	if !hasFloat(v) {
		return v
	}
	return floatsAsJSON(v)
}

func floatsAsJSON(v any) any {
	return MapLeaves(v, func(x any) any {
		if f, ok := x.(float64); ok {
			return jsonFloat(f)
		}
		return x
	})
}

// jsonFloat prints as the YAML value its JSON text stands for.
type jsonFloat float64

func (f jsonFloat) MarshalYAML() (any, error) {
	b, err := json.Marshal(float64(f))
	if err != nil {
		return nil, err
	}
	var out any
	err = yamlv2.Unmarshal(b, &out)
	return out, err
}

// marshalYAML writes one object as YAML, as sigs.k8s.io/yaml.Marshal would.
func marshalYAML(v any) ([]byte, error) {
	return yamlv2.Marshal(yamlReady(v))
}

func hasFloat(v any) bool {
	switch v := v.(type) {
	case float64:
		return true
	case map[string]any:
		for _, c := range v {
			if hasFloat(c) {
				return true
			}
		}
	case []any:
		for _, c := range v {
			if hasFloat(c) {
				return true
			}
		}
	}
	return false
}
