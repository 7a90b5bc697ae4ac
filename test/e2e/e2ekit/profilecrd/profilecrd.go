// Package profilecrd builds stand-in CRDs from the shipped profiles for the
// end-to-end suites that run a real API server (test/e2e/apiserver and
// test/e2e/controller).
package profilecrd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TB is what the builders need of a test: *testing.T, or a suite's own
// stand-in while TestMain sets up.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// CRD builds a CRD for one kind from a shipped profile (profileFile under
// profilesDir): every default of the profile at its path, plus every field
// the given test objects use (untyped), and nothing else, so the API server
// prunes what neither declares, as with the operator's own CRD. It stands in
// for that CRD in tests that must run without the upstream CRDs: those are
// never copied into the repository.
func CRD(t TB, profilesDir, profileFile, kind, plural string, objects []*unstructured.Unstructured) *apiextv1.CustomResourceDefinition {
	t.Helper()
	return ScopedCRD(t, profilesDir, profileFile, kind, plural, apiextv1.NamespaceScoped, objects)
}

// ScopedCRD is CRD for a kind of the given scope.
// Defaults in map values (the profile's maps) become additionalProperties,
// and the fields inside object and list default values are declared, as the
// API server refuses a default that pruning would change. A version with
// defaults on read declares their fields without a default: the storage
// version's default is what the API server adds there when it reads the
// object back, and the version's schema keeps it.
func ScopedCRD(t TB, profilesDir, profileFile, kind, plural string, scope apiextv1.ResourceScope, objects []*unstructured.Unstructured) *apiextv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(profilesDir, profileFile))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Resources []struct {
			Group, Version, Kind string
			Storage              bool
			Maps                 []string
			Defaults             []profileDefault
			ReadDefaults         []profileDefault `json:"readDefaults"`
		}
	}
	if err := yaml.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	crd := &apiextv1.CustomResourceDefinition{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}}
	for _, r := range p.Resources {
		if r.Kind != kind {
			continue
		}
		maps := map[string]bool{}
		for _, m := range r.Maps {
			maps[m] = true
		}
		crd.Name = plural + "." + r.Group
		crd.Spec.Group, crd.Spec.Scope = r.Group, scope
		if strings.HasSuffix(r.Group, ".k8s.io") || strings.HasSuffix(r.Group, ".kubernetes.io") {
			// Protected groups (Gateway API's) need this annotation.
			crd.Annotations = map[string]string{APIApproved: "unapproved, built from a cmp-defaults profile for tests"}
		}
		crd.Spec.Names = apiextv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)}
		root := &schemaNode{}
		for _, d := range r.Defaults {
			n := root.at(t, d.Path, maps)
			n.def, n.typ, n.nullable, n.declared = d.Value, d.Type, d.Nullable, true
			n.declare(d.Value)
		}
		for _, d := range r.ReadDefaults {
			if n := root.at(t, d.Path, maps); !n.declared {
				n.typ, n.declared = d.Type, true
				n.declare(d.Value)
			}
		}
		for _, o := range objects {
			if o.GetKind() == kind {
				root.add(o.Object["spec"], "spec")
			}
		}
		crd.Spec.Versions = append(crd.Spec.Versions, apiextv1.CustomResourceDefinitionVersion{
			Name: r.Version, Served: true, Storage: r.Storage,
			Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: root.props(true)},
		})
	}
	if len(crd.Spec.Versions) == 0 {
		t.Fatalf("%s has no rules for %s", profileFile, kind)
	}
	return crd
}

type profileDefault struct {
	Path     string
	Type     string
	Nullable bool
	Value    any
}

// at is the node of a profile path, made as needed.
func (n *schemaNode) at(t TB, path string, maps map[string]bool) *schemaNode {
	at := ""
	for _, s := range splitProfilePath(t, path) {
		if s == "[]" && maps[at] {
			if n.values == nil {
				n.values = &schemaNode{}
			}
			n = n.values
		} else {
			n = n.child(s)
		}
		if s == "[]" {
			at += s
		} else {
			at += "." + s
		}
	}
	return n
}

// APIApproved is the annotation a CRD of a *.k8s.io or *.kubernetes.io group
// needs; the stand-in CRDs say they are not approved.
const APIApproved = "api-approved.kubernetes.io"

type schemaNode struct {
	fields   map[string]*schemaNode
	items    *schemaNode
	values   *schemaNode // map values (additionalProperties)
	def      any
	typ      string
	nullable bool
	declared bool // a profile default sits here
}

// add declares the fields a test object uses below name.
func (n *schemaNode) add(v any, name string) {
	c := n.child(name)
	switch v := v.(type) {
	case map[string]any:
		if c.fields == nil {
			c.fields = map[string]*schemaNode{}
		}
		for k, x := range v {
			c.add(x, k)
		}
	case []any:
		for _, x := range v {
			c.add(x, "[]")
		}
	}
}

// declare adds the fields inside a default value to the schema.
func (n *schemaNode) declare(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			n.child(k).declare(x)
		}
	case []any:
		for _, x := range v {
			n.child("[]").declare(x)
		}
	}
}

func (n *schemaNode) child(seg string) *schemaNode {
	if seg == "[]" {
		if n.items == nil {
			n.items = &schemaNode{}
		}
		return n.items
	}
	if n.fields == nil {
		n.fields = map[string]*schemaNode{}
	}
	if n.fields[seg] == nil {
		n.fields[seg] = &schemaNode{}
	}
	return n.fields[seg]
}

func (n *schemaNode) props(root bool) *apiextv1.JSONSchemaProps {
	yes := true
	s := &apiextv1.JSONSchemaProps{Nullable: n.nullable}
	switch {
	case n.items != nil:
		s.Type = "array"
		s.Items = &apiextv1.JSONSchemaPropsOrArray{Schema: n.items.props(false)}
	case n.values != nil:
		s.Type = "object"
		s.AdditionalProperties = &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: n.values.props(false)}
	case n.fields != nil:
		s.Type = "object"
		s.Properties = map[string]apiextv1.JSONSchemaProps{}
		for k, c := range n.fields {
			s.Properties[k] = *c.props(false)
		}
	case n.typ == "object":
		s.Type, s.XPreserveUnknownFields = "object", &yes
	case n.typ != "":
		s.Type = n.typ
	case n.declared:
		s.XIntOrString = true
	default: // a field of the test objects: any value
		s.XPreserveUnknownFields = &yes
	}
	if root {
		s.Properties["apiVersion"] = apiextv1.JSONSchemaProps{Type: "string"}
		s.Properties["kind"] = apiextv1.JSONSchemaProps{Type: "string"}
		s.Properties["metadata"] = apiextv1.JSONSchemaProps{Type: "object"}
		s.Properties["status"] = apiextv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &yes}
	}
	if n.def != nil && !root {
		raw, _ := json.Marshal(n.def)
		s.Default = &apiextv1.JSON{Raw: raw}
	}
	return s
}

// splitProfilePath splits the profile's jq paths (.a.b[].c) into fields and "[]".
func splitProfilePath(t TB, p string) []string {
	var out []string
	for _, part := range strings.Split(strings.TrimPrefix(p, "."), ".") {
		name, iters := part, 0
		for strings.HasSuffix(name, "[]") {
			name, iters = strings.TrimSuffix(name, "[]"), iters+1
		}
		if name == "" || strings.ContainsAny(name, `["`) {
			t.Fatalf("path %s: only .field and [] are supported by this helper", p)
		}
		out = append(out, name)
		for ; iters > 0; iters-- {
			out = append(out, "[]")
		}
	}
	return out
}
