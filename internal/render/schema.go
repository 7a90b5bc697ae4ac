package render

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// validateSchemas checks values against values.schema.json of the chart and
// its subcharts exactly as Helm's util.ValidateAgainstSchema does, except for
// how schema references are loaded: Helm fetches http(s) references from the
// network and file references from anywhere on disk; here both must stay
// inside the repository root and the network is never used.
func validateSchemas(root string, ch *chart.Chart, values any) error {
	var cause error
	err := validateSchemasRec(root, ch, asMap(values), &cause)
	if err != nil && cause != nil {
		return &schemaError{msg: err.Error(), cause: cause}
	}
	return err
}

// schemaError keeps Helm's message and lets errors.Is see why a reference
// was refused (ErrRemote, ErrOutsideRoot).
type schemaError struct {
	msg   string
	cause error
}

func (e *schemaError) Error() string { return e.msg }
func (e *schemaError) Unwrap() error { return e.cause }

func validateSchemasRec(root string, ch *chart.Chart, vals map[string]any, cause *error) error {
	var sb strings.Builder
	if ch.Schema != nil {
		if err := validateSchema(root, vals, ch.Schema, cause); err != nil {
			fmt.Fprintf(&sb, "%s:\n", ch.Name())
			sb.WriteString(err.Error())
		}
	}
	for _, sub := range ch.Dependencies() {
		raw, ok := vals[sub.Name()]
		if !ok || raw == nil {
			continue
		}
		subVals := asMap(raw)
		if subVals == nil {
			fmt.Fprintf(&sb, "%s:\ninvalid type for values: expected object (map), got %T\n", sub.Name(), raw)
			continue
		}
		if err := validateSchemasRec(root, sub, subVals, cause); err != nil {
			sb.WriteString(err.Error())
		}
	}
	if sb.Len() > 0 {
		return errors.New(sb.String())
	}
	return nil
}

func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case common.Values:
		return m
	}
	return nil
}

func validateSchema(root string, values map[string]any, schemaJSON []byte, cause *error) (reterr error) {
	defer func() {
		if r := recover(); r != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{
		"file":  repoFileLoader{root, cause},
		"http":  noNetworkLoader{cause},
		"https": noNetworkLoader{cause},
		"urn":   urnLoader{},
	})
	if err := c.AddResource("file:///values.schema.json", schema); err != nil {
		return err
	}
	v, err := c.Compile("file:///values.schema.json")
	if err != nil {
		return err
	}
	if err := v.Validate(values); err != nil {
		// Same text as Helm's JSONSchemaValidationError.
		return errors.New(strings.TrimPrefix(err.Error(), "jsonschema validation failed with 'file:///values.schema.json#'\n") + "\n")
	}
	return nil
}

type repoFileLoader struct {
	root  string
	cause *error
}

func (l repoFileLoader) Load(url string) (any, error) {
	p, err := jsonschema.FileLoader{}.ToFile(url)
	if err != nil {
		return nil, err
	}
	if _, err := checkInside(l.root, p, "schema reference "+url); err != nil {
		if *l.cause == nil {
			*l.cause = err
		}
		return nil, err
	}
	return jsonschema.FileLoader{}.Load(url)
}

type noNetworkLoader struct{ cause *error }

func (l noNetworkLoader) Load(url string) (any, error) {
	err := fmt.Errorf("schema reference %s: %w: cmp-defaults renders offline; vendor the referenced schema into values.schema.json", url, ErrRemote)
	if *l.cause == nil {
		*l.cause = err
	}
	return nil, err
}

// urnLoader mirrors Helm's: a resolver may be plugged into util.URNResolver;
// unresolved URNs are accepted as a permissive schema.
type urnLoader struct{}

func (urnLoader) Load(url string) (any, error) {
	if doc, err := util.URNResolver(url); err == nil && doc != nil {
		return doc, nil
	}
	return jsonschema.UnmarshalJSON(strings.NewReader("true"))
}
