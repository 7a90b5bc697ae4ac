package operators

import (
	"fmt"
	"reflect"

	"github.com/itchyny/gojq"
)

// nonDeterministic are jq functions and variables whose result depends on
// the time, the environment or other input than the object: a rule using
// them would make the same manifests render differently per run.
var nonDeterministic = map[string]string{
	"now": "depends on the current time", "localtime": "depends on the time zone", "strflocaltime": "depends on the time zone",
	"env": "depends on the environment", "$ENV": "depends on the environment",
	"input": "reads other input", "inputs": "reads other input", "input_filename": "depends on the input file",
	"input_line_number": "depends on the input", "$__loc__": "depends on where the rule is written",
	"$__prog_args": "depends on the command line", "debug": "writes to stderr", "stderr": "writes to stderr",
	"halt": "ends the process", "halt_error": "ends the process",
}

// checkDeterministic refuses a query that calls a function from
// nonDeterministic (found anywhere in its syntax tree).
func checkDeterministic(q *gojq.Query) error {
	var bad string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if bad != "" {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				if f, ok := v.Interface().(*gojq.Func); ok {
					if why, found := nonDeterministic[f.Name]; found {
						bad = f.Name + " " + why
						return
					}
				}
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(q))
	if bad != "" {
		return fmt.Errorf("%s; rules must give the same result for the same object on every run", bad)
	}
	return nil
}

// CompileJQ compiles a jq expression; asPath wraps it in path(...) so that it
// yields the paths it selects, the way Argo CD reads jqPathExpressions.
// Functions whose result depends on anything but the object are refused.
func CompileJQ(expr string, asPath bool) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("jq %q: %v", expr, err)
	}
	if err := checkDeterministic(q); err != nil {
		return nil, fmt.Errorf("jq %q: %v", expr, err)
	}
	if asPath {
		optional(q)
		q, err = gojq.Parse("path(" + q.String() + ")")
		if err != nil {
			return nil, fmt.Errorf("jq %q: %v", expr, err)
		}
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("jq %q: %v", expr, err)
	}
	return code, nil
}

// optional makes every [] in a path expression tolerant of null and of
// wrong types, so one object without a list does not abort the others.
func optional(q *gojq.Query) {
	if q == nil {
		return
	}
	optional(q.Left)
	optional(q.Right)
	if q.Term != nil {
		// gojq keeps "?" as a suffix of its own after the "[]".
		var out []*gojq.Suffix
		for i, s := range q.Term.SuffixList {
			out = append(out, s)
			if s.Iter && (i+1 == len(q.Term.SuffixList) || !q.Term.SuffixList[i+1].Optional) {
				out = append(out, &gojq.Suffix{Optional: true})
			}
		}
		q.Term.SuffixList = out
		if q.Term.Query != nil {
			optional(q.Term.Query)
		}
	}
}
