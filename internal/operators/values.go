package operators

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// CheckType says whether v fits a schema type ("" accepts anything).
func CheckType(typ string, v any) error {
	ok := true
	switch typ {
	case "":
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "integer":
		_, ok = v.(int64)
	case "number":
		switch v.(type) {
		case int64, float64:
		default:
			ok = false
		}
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	default:
		return fmt.Errorf("unknown type %q (want string, boolean, integer, number, object or array)", typ)
	}
	if !ok {
		return fmt.Errorf("value %s is not of type %s", short(v), typ)
	}
	return nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// normalize turns a YAML-decoded value into the JSON value types objects
// use (int64, float64, string, bool, []any, map[string]any).
func normalize(v any) (any, error) {
	// Most defaults are plain scalars: they come out of the JSON round
	// trip as they went in (ints as int64), so skip it for them.
	switch x := v.(type) {
	case bool:
		return x, nil
	case int:
		return int64(x), nil
	case string:
		if utf8.ValidString(x) {
			return x, nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = utiljson.Unmarshal(b, &out)
	return out, err
}
