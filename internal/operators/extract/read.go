package extract

import (
	"fmt"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// The API server keeps a custom resource in the CRD's storage version. When
// it reads one back (the response to a create, every get, list and watch) it
// decodes the stored object, applies the storage version's defaults, converts
// it to the version asked for and prunes it with that version's schema. So an
// object written as a served version that lacks a default of the storage
// version is served with it. readDefaults computes those defaults for one
// served version: the storage version's defaults at the fields the served
// schema keeps, their object values pruned as the served schema prunes them.

// storageOf returns the CRD's storage version, or nil.
func storageOf(crd *apiextv1.CustomResourceDefinition) *apiextv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Storage {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// conversionOf is the CRD's conversion strategy ("None" when unset).
func conversionOf(crd *apiextv1.CustomResourceDefinition) string {
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy == "" {
		return operators.ConversionNone
	}
	return string(crd.Spec.Conversion.Strategy)
}

// readDefaults fills r's StorageVersion, Conversion and ReadDefaults for the
// served version ver of crd.
func readDefaults(r *operators.Resource, crd *apiextv1.CustomResourceDefinition, ver *apiextv1.CustomResourceDefinitionVersion) error {
	st := storageOf(crd)
	if st == nil || st.Name == ver.Name || st.Schema == nil || st.Schema.OpenAPIV3Schema == nil {
		return nil
	}
	served, err := structural(ver.Schema.OpenAPIV3Schema)
	if err != nil {
		return fmt.Errorf("CRD %s version %s: %v", crd.Name, ver.Name, err)
	}
	own := make(map[string]bool, len(r.Defaults))
	for _, d := range r.Defaults {
		own[d.Path] = d.Nullable
	}
	w := readWalker{crd: crd.Name, own: own, kept: map[string]bool{}}
	if err := w.walk(st.Schema.OpenAPIV3Schema, served, false, nil); err != nil {
		return err
	}
	if len(w.defaults) == 0 {
		return nil
	}
	r.StorageVersion = st.Name
	if c := conversionOf(crd); c != operators.ConversionNone {
		r.Conversion = c
	}
	r.ReadDefaults = w.defaults
	r.Maps = mergeMaps(r.Maps, w.maps)
	return nil
}

func structural(s *apiextv1.JSONSchemaProps) (*structuralschema.Structural, error) {
	var internal apiextensions.JSONSchemaProps
	if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, &internal, nil); err != nil {
		return nil, err
	}
	return structuralschema.NewStructural(&internal)
}

type readWalker struct {
	crd      string
	own      map[string]bool // paths the served version defaults itself: nullable there
	kept     map[string]bool // read defaults recorded so far
	defaults []operators.Default
	maps     []string
}

// walk records the storage schema s's defaults top-down where the served
// schema keeps the field: served is the served schema at the same path, or
// nil with preserve when the served schema keeps everything below.
func (w *readWalker) walk(s *apiextv1.JSONSchemaProps, served *structuralschema.Structural, preserve bool, segs []tree.Seg) error {
	for _, n := range fields(s, len(segs) == 0) {
		sub, subPreserve, ok := servedProperty(served, preserve, n)
		if !ok {
			continue // pruned on read: the served schema does not have it
		}
		child := s.Properties[n]
		p := append(append([]tree.Seg(nil), segs...), tree.Seg{Name: n})
		if child.Default != nil {
			if err := w.record(&child, sub, subPreserve, p); err != nil {
				return err
			}
		}
		if err := w.walk(&child, sub, subPreserve, p); err != nil {
			return err
		}
	}
	iter := append(append([]tree.Seg(nil), segs...), tree.Seg{Iter: true})
	if s.Items != nil && s.Items.Schema != nil {
		if sub, subPreserve, ok := servedItems(served, preserve); ok {
			if err := w.walk(s.Items.Schema, sub, subPreserve, iter); err != nil {
				return err
			}
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if sub, subPreserve, ok := servedValues(served, preserve); ok {
			before := len(w.defaults)
			if err := w.walk(s.AdditionalProperties.Schema, sub, subPreserve, iter); err != nil {
				return err
			}
			if len(w.defaults) > before {
				w.maps = append(w.maps, tree.FormatPath(segs))
			}
		}
	}
	return nil
}

// record adds the default of child at p, unless the served version's own
// default at p leaves it nothing to do: no read default above p can create
// p's parent after the served version's defaults ran, and p cannot be left
// null where the storage version would default a null.
func (w *readWalker) record(child *apiextv1.JSONSchemaProps, served *structuralschema.Structural, preserve bool, p []tree.Seg) error {
	path := tree.FormatPath(p)
	if nullable, ok := w.own[path]; ok && (!nullable || child.Nullable) && !w.keptAbove(p) {
		return nil
	}
	d, err := defaultOf(w.crd, child, path)
	if err != nil {
		return err
	}
	if !preserve {
		pruning.Prune(d.Value, served, false)
	}
	w.defaults = append(w.defaults, d)
	w.kept[path] = true
	return nil
}

func (w *readWalker) keptAbove(p []tree.Seg) bool {
	for i := 1; i < len(p); i++ {
		if w.kept[tree.FormatPath(p[:i])] {
			return true
		}
	}
	return false
}

// servedProperty is the served schema of property n of an object: the
// property, or the schema of the object's map values, or everything kept.
func servedProperty(s *structuralschema.Structural, preserve bool, n string) (*structuralschema.Structural, bool, bool) {
	switch {
	case preserve:
		return nil, true, true
	case s == nil:
		return nil, false, false
	}
	if c, ok := s.Properties[n]; ok {
		return &c, c.XPreserveUnknownFields, true
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Structural != nil {
			return ap.Structural, ap.Structural.XPreserveUnknownFields, true
		}
		if ap.Bool {
			return nil, true, true
		}
	}
	if s.XPreserveUnknownFields {
		return nil, true, true
	}
	return nil, false, false
}

func servedItems(s *structuralschema.Structural, preserve bool) (*structuralschema.Structural, bool, bool) {
	switch {
	case preserve:
		return nil, true, true
	case s == nil:
		return nil, false, false
	case s.Items != nil:
		return s.Items, s.Items.XPreserveUnknownFields, true
	case s.XPreserveUnknownFields:
		return nil, true, true
	}
	return nil, false, false
}

func servedValues(s *structuralschema.Structural, preserve bool) (*structuralschema.Structural, bool, bool) {
	switch {
	case preserve:
		return nil, true, true
	case s == nil:
		return nil, false, false
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Structural != nil {
			return ap.Structural, ap.Structural.XPreserveUnknownFields, true
		}
		return nil, ap.Bool, ap.Bool
	}
	if s.XPreserveUnknownFields {
		return nil, true, true
	}
	return nil, false, false
}

func mergeMaps(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range append(append([]string(nil), a...), b...) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}
