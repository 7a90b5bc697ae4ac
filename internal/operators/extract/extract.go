// Package extract makes a profile of an operator release from its CRDs:
// the structural schema defaults of every served version, and the storage
// version's defaults the API server adds when it reads an object back.
package extract

import (
	"fmt"
	"sort"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// CRDFile is one input file of ParseCRDs.
type CRDFile struct {
	Name string
	Data []byte
}

// ParseCRDs reads every CustomResourceDefinition in the files; other kinds
// are ignored. Served versions only matter to Profile.
func ParseCRDs(files []CRDFile) ([]apiextv1.CustomResourceDefinition, error) {
	return ParseCRDsWithLimits(files, manifest.DefaultLimits)
}

// ParseCRDsWithLimits is ParseCRDs with the files decoded within lim,
// their documents counted together.
func ParseCRDsWithLimits(files []CRDFile, lim manifest.Limits) ([]apiextv1.CustomResourceDefinition, error) {
	var crds []apiextv1.CustomResourceDefinition
	lim = lim.Counted()
	for _, f := range files {
		objs, err := manifest.DecodeWithLimits(f.Name, f.Data, lim)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.Data["kind"] != "CustomResourceDefinition" {
				continue
			}
			if av := o.Data["apiVersion"]; av != "apiextensions.k8s.io/v1" {
				return nil, fmt.Errorf("%s: %s: apiVersion %v is not supported; only apiextensions.k8s.io/v1 CRDs carry structural defaults", o.Where(), o.ID(), av)
			}
			j, err := utiljson.Marshal(o.Data)
			if err != nil {
				return nil, err
			}
			var crd apiextv1.CustomResourceDefinition
			if err := yaml.Unmarshal(j, &crd); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", o.Where(), o.ID(), err)
			}
			crds = append(crds, crd)
		}
	}
	return crds, nil
}

// Profile builds a profile from CRDs: one resource per served version whose
// schema declares defaults, or whose storage version's defaults the API
// server adds when it reads the object back (read.go). Defaults under
// .status are left out: with the status subresource the API server drops
// status on create, and status is the controller's, not Git's.
func Profile(operator, version string, crds []apiextv1.CustomResourceDefinition) (*operators.Profile, error) {
	if err := operators.CheckName(operator); err != nil {
		return nil, err
	}
	v, err := operators.CanonicalVersion(version)
	if err != nil {
		return nil, err
	}
	p := &operators.Profile{APIVersion: operators.APIVersion, Kind: operators.KindProfile, Operator: operator, Version: v}
	seen := map[string]string{}
	for _, crd := range crds {
		for _, ver := range crd.Spec.Versions {
			if !ver.Served {
				continue
			}
			key := crd.Spec.Group + "/" + ver.Name + " " + crd.Spec.Names.Kind
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("%s is defined by two CRDs (%s and %s)", key, prev, crd.Name)
			}
			seen[key] = crd.Name
			if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
				continue
			}
			r := operators.Resource{Group: crd.Spec.Group, Version: ver.Name, Kind: crd.Spec.Names.Kind, Storage: ver.Storage}
			w := walker{r: &r, crd: crd.Name}
			if err := w.walk(ver.Schema.OpenAPIV3Schema, nil); err != nil {
				return nil, err
			}
			sort.Strings(r.Maps)
			if err := readDefaults(&r, &crd, &ver); err != nil {
				return nil, err
			}
			if len(r.Defaults) > 0 || len(r.ReadDefaults) > 0 {
				p.Resources = append(p.Resources, r)
			}
		}
	}
	operators.SortResources(p.Resources)
	return p, nil
}

type walker struct {
	r   *operators.Resource
	crd string
}

// walk records defaults top-down, properties in name order, and returns
// whether the subtree holds any.
func (w *walker) walk(s *apiextv1.JSONSchemaProps, segs []tree.Seg) error {
	for _, n := range fields(s, len(segs) == 0) {
		child := s.Properties[n]
		p := append(append([]tree.Seg(nil), segs...), tree.Seg{Name: n})
		if child.Default != nil {
			d, err := defaultOf(w.crd, &child, tree.FormatPath(p))
			if err != nil {
				return err
			}
			w.r.Defaults = append(w.r.Defaults, d)
		}
		if err := w.walk(&child, p); err != nil {
			return err
		}
	}
	iter := append(append([]tree.Seg(nil), segs...), tree.Seg{Iter: true})
	if s.Items != nil && s.Items.Schema != nil {
		if s.Items.Schema.Default != nil {
			return fmt.Errorf("CRD %s: a default on the items of %s is not supported yet", w.crd, tree.FormatPath(segs))
		}
		if err := w.walk(s.Items.Schema, iter); err != nil {
			return err
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if s.AdditionalProperties.Schema.Default != nil {
			return fmt.Errorf("CRD %s: a default on the values of map %s is not supported yet", w.crd, tree.FormatPath(segs))
		}
		before := len(w.r.Defaults)
		if err := w.walk(s.AdditionalProperties.Schema, iter); err != nil {
			return err
		}
		if len(w.r.Defaults) > before {
			w.r.Maps = append(w.r.Maps, tree.FormatPath(segs))
		}
	}
	return nil
}

// fields are the names of s's properties in order, at the root without
// status (the controller's), apiVersion and kind.
func fields(s *apiextv1.JSONSchemaProps, root bool) []string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		if !root || (n != "status" && n != "apiVersion" && n != "kind") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// defaultOf is the default of the property p at path as a profile rule.
func defaultOf(crd string, p *apiextv1.JSONSchemaProps, path string) (operators.Default, error) {
	var v any
	if err := utiljson.Unmarshal(p.Default.Raw, &v); err != nil {
		return operators.Default{}, fmt.Errorf("CRD %s: default at %s: %v", crd, path, err)
	}
	typ := p.Type
	if p.XIntOrString {
		typ = ""
	}
	return operators.Default{Path: path, Type: typ, Nullable: p.Nullable, Value: v}, nil
}
