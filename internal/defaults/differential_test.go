package defaults

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/operators/extract"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// The differential tests prove that the engine equals the API server's own
// structural defaulting (k8s.io/apiextensions-apiserver/.../defaulting):
// same schema, same object in, same object out.

// structuralFromResource builds the structural schema a profile resource
// stands for: only the branches that lead to defaults, and the fields of the
// read defaults it fills (without their defaults: they are the storage
// version's).
func structuralFromResource(t testing.TB, rs *operators.Resource) *structuralschema.Structural {
	maps := map[string]bool{}
	for _, m := range rs.Maps {
		maps[m] = true
	}
	root := &tnode{}
	defs := rs.Defaults
	if rs.FillsOnRead() {
		for _, d := range rs.ReadDefaults {
			d.Value = nil
			defs = append(slices.Clip(defs), d)
		}
	}
	for _, d := range defs {
		segs, err := tree.ParsePath(d.Path)
		if err != nil {
			t.Fatal(err)
		}
		n := root
		for j, s := range segs {
			switch {
			case s.Iter && maps[tree.FormatPath(segs[:j])]:
				n.values = n.values.orNew()
				n = n.values
			case s.Iter:
				n.items = n.items.orNew()
				n = n.items
			default:
				if n.props == nil {
					n.props = map[string]*tnode{}
				}
				n.props[s.Name] = n.props[s.Name].orNew()
				n = n.props[s.Name]
				if j == len(segs)-1 && (d.Value != nil || n.typ == "") {
					n.def, n.nullable, n.typ = d.Value, d.Nullable, d.Type
				}
			}
		}
	}
	s := root.structural()
	return &s
}

// tnode is a mutable schema tree, turned into a Structural at the end.
type tnode struct {
	props         map[string]*tnode
	items, values *tnode
	def           any
	nullable      bool
	typ           string
}

func (n *tnode) orNew() *tnode {
	if n == nil {
		return &tnode{}
	}
	return n
}

func (n *tnode) structural() structuralschema.Structural {
	s := structuralschema.Structural{Generic: structuralschema.Generic{Type: n.typ, Nullable: n.nullable}}
	if n.def != nil {
		s.Default = structuralschema.JSON{Object: runtime.DeepCopyJSONValue(n.def)}
	}
	switch {
	case n.props != nil:
		s.Type = "object"
		s.Properties = map[string]structuralschema.Structural{}
		for k, c := range n.props {
			s.Properties[k] = c.structural()
		}
	case n.items != nil:
		s.Type = "array"
		it := n.items.structural()
		s.Items = &it
	case n.values != nil:
		s.Type = "object"
		v := n.values.structural()
		s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: &v}
	case n.typ == "object":
		// An object default's own fields are not listed: kept as they are.
		s.XPreserveUnknownFields = true
	}
	return s
}

// gen makes random objects shaped like the schema: fields absent, null or
// set, lists and maps of 0-3 entries, unknown fields, and wrong-but-legal
// scalars where the schema has no type.
type gen struct{ r *rand.Rand }

func (g gen) value(s *structuralschema.Structural, depth int) any {
	if s == nil {
		return "x"
	}
	if depth > 12 {
		// Deep enough (Argo Rollouts nests pod specs at depth 13): an empty
		// value of the right type, as a wrong type is an error to fill.
		switch s.Type {
		case "object":
			return map[string]any{}
		case "array":
			return []any{}
		}
	}
	switch s.Type {
	case "object":
		m := map[string]any{"unknownField": int64(g.r.Intn(3))}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := s.Properties[n]
			switch x := g.r.Intn(10); {
			case x < 4: // absent
			case x < 5:
				m[n] = nil
			default:
				m[n] = g.value(&p, depth+1)
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			for i := 0; i < g.r.Intn(4); i++ {
				if g.r.Intn(8) == 0 {
					m[fmt.Sprintf("k%d", i)] = nil
				} else {
					m[fmt.Sprintf("k%d", i)] = g.value(s.AdditionalProperties.Structural, depth+1)
				}
			}
		}
		return m
	case "array":
		l := make([]any, g.r.Intn(4))
		for i := range l {
			if g.r.Intn(8) == 0 {
				l[i] = nil
			} else {
				l[i] = g.value(s.Items, depth+1)
			}
		}
		return l
	case "string":
		return fmt.Sprintf("user-%d", g.r.Intn(5))
	case "integer":
		return int64(g.r.Intn(100))
	case "number":
		return float64(g.r.Intn(100)) + 0.5
	case "boolean":
		return g.r.Intn(2) == 0
	}
	if s.Default.Object != nil && g.r.Intn(2) == 0 {
		return runtime.DeepCopyJSONValue(s.Default.Object)
	}
	return fmt.Sprintf("v%d", g.r.Intn(5))
}

// compareRead checks the engine against the API server for an object of a
// served version s whose storage version is storage (nil when s is stored):
// the API server defaults it with s, stores it, and when it reads it back
// defaults it with storage and prunes it with s. Fields of obj that s prunes
// are left out first: the engine does not prune.
func compareRead(t *testing.T, name string, e *Engine, s, storage *structuralschema.Structural, obj map[string]any) {
	t.Helper()
	if storage != nil {
		obj = runtime.DeepCopyJSONValue(obj).(map[string]any)
		pruning.Prune(obj, s, true)
	}
	want := runtime.DeepCopyJSONValue(obj).(map[string]any)
	defaulting.Default(want, s)
	if storage != nil {
		defaulting.Default(want, storage)
		pruning.Prune(want, s, true)
	}
	got := runtime.DeepCopyJSONValue(obj).(map[string]any)
	if err := e.Fill(got, nil); err != nil {
		t.Fatalf("%s: fill: %v\nobject: %v", name, err, obj)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: engine and apiserver defaulting differ\n in:  %v\n got: %v\nwant: %v", name, obj, got, want)
	}
	// Idempotent: a filled object gets nothing more.
	n := 0
	if err := e.Fill(got, func(Filled) { n++ }); err != nil || n != 0 {
		t.Fatalf("%s: second fill set %d fields (err %v)", name, n, err)
	}
}

// engineFor compiles the CRD schema defaults of one resource: webhook
// mutations are no part of the API server's structural defaulting.
func engineFor(t testing.TB, p *operators.Profile, rs *operators.Resource) *Engine {
	one := *p
	r := *rs
	r.Mutations = nil
	one.Resources = []operators.Resource{r}
	e, err := Compile([]*operators.Resolution{{Operator: p.Operator, Requested: p.Version, Profile: &one}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestDifferentialShippedProfiles runs random objects through every kind of
// every shipped profile.
func TestDifferentialShippedProfiles(t *testing.T) {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		t.Fatal(err)
	}
	perKind := 40
	if testing.Short() {
		perKind = 5
	}
	total, read := 0, 0
	for _, op := range st.Operators() {
		ps, err := st.Profiles(op)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			for i := range p.Resources {
				rs := &p.Resources[i]
				if len(rs.Defaults) == 0 {
					continue // mutations only (Knative's Route): no schema default to compare
				}
				s := structuralFromResource(t, rs)
				var storage *structuralschema.Structural
				if rs.FillsOnRead() {
					storage = structuralFromResource(t, storageOf(t, p, rs))
					read++
				}
				e := engineFor(t, p, rs)
				g := gen{rand.New(rand.NewSource(int64(total)))}
				for k := 0; k < perKind; k++ {
					obj := g.value(s, 0).(map[string]any)
					obj["apiVersion"], obj["kind"] = rs.APIVersion(), rs.Kind
					delete(obj, "unknownField")
					compareRead(t, fmt.Sprintf("%s@%s %s %s #%d", op, p.Version, rs.APIVersion(), rs.Kind, k), e, s, storage, obj)
					total++
				}
			}
		}
	}
	if read == 0 {
		t.Error("no shipped profile fills a storage version's defaults on read: the read pass is not compared")
	}
	t.Logf("%d random objects compared, %d kinds with defaults on read", total, read)
}

// storageOf is the resource of rs's storage version in the same profile.
func storageOf(t testing.TB, p *operators.Profile, rs *operators.Resource) *operators.Resource {
	for i := range p.Resources {
		if r := &p.Resources[i]; r.Group == rs.Group && r.Kind == rs.Kind && r.Version == rs.StorageVersion {
			return r
		}
	}
	t.Fatalf("%s %s %s: no resource of its storage version %s", p.Version, rs.APIVersion(), rs.Kind, rs.StorageVersion)
	return nil
}

// TestDifferentialCRD extracts a profile from a CRD written for this test
// (nullable fields, object defaults with nested defaults, defaults in list
// items and map values) and compares with defaulting on the CRD's own
// structural schema, not one rebuilt from the profile.
func TestDifferentialCRD(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "widgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crds, err := extract.ParseCRDs([]extract.CRDFile{{Name: "widgets-crd.yaml", Data: data}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := extract.Profile("widgets", "1.0.0", crds)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Resources) != 2 {
		t.Fatalf("want 2 served versions with defaults, got %d", len(p.Resources))
	}
	for i := range p.Resources {
		rs := &p.Resources[i]
		s := crdStructural(t, crds[0], rs.Version)
		var storage *structuralschema.Structural
		if rs.StorageVersion != "" {
			if !rs.FillsOnRead() {
				t.Fatalf("%s: conversion %s: the test CRD converts without a webhook", rs.Version, rs.Conversion)
			}
			storage = crdStructural(t, crds[0], rs.StorageVersion)
		}
		e := engineFor(t, p, rs)
		g := gen{rand.New(rand.NewSource(int64(i)))}
		for k := 0; k < 2000; k++ {
			obj := g.value(s, 0).(map[string]any)
			obj["apiVersion"], obj["kind"] = rs.APIVersion(), rs.Kind
			// Status is left out on purpose (see extract.Profile).
			delete(obj, "status")
			compareRead(t, fmt.Sprintf("%s #%d", rs.Version, k), e, s, storage, obj)
		}
	}
	// v1 sorts before v1beta1.
	if rs := p.Resources[1]; rs.Version != "v1beta1" || len(rs.ReadDefaults) == 0 {
		t.Fatalf("v1beta1 has no defaults on read from v1: %+v", rs)
	}
}

func crdStructural(t testing.TB, crd apiextv1.CustomResourceDefinition, version string) *structuralschema.Structural {
	for _, v := range crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			t.Fatal(err)
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Fatalf("no version %s", version)
	return nil
}
