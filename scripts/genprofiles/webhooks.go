package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"

	admregv1 "k8s.io/api/admissionregistration/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// webhookRanges turns the webhooks each release's manifests register
// (byTag, for the tags that have one of the files, each webhook naming its
// file) into one entry per webhook and run of consecutive releases over
// which its rules stay the same.
func webhookRanges(files []string, rels []release, byTag map[string][]operators.Webhook) ([]operators.Webhook, error) {
	var out []operators.Webhook
	open := map[string]int{} // webhook name -> its entry in out, if it ran up to the previous release
	for _, r := range rels {
		next := map[string]int{}
		for _, h := range byTag[r.tag] {
			if i, ok := open[h.Name]; ok && out[i].File == h.File && reflect.DeepEqual(out[i].Rules, h.Rules) {
				out[i].To = r.tag
				next[h.Name] = i
				continue
			}
			h.From, h.To = r.tag, r.tag
			out = append(out, h)
			next[h.Name] = len(out) - 1
		}
		open = next
	}
	if len(byTag) == 0 {
		return nil, fmt.Errorf("webhooks: %s is at none of the releases %s..%s", strings.Join(files, ", "), rels[0].tag, rels[len(rels)-1].tag)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// mutatingWebhooks parses the MutatingWebhookConfigurations of a file at a
// tag and keeps the webhooks and rules on the given API groups; a webhook
// without rules gets one per CRD of crds (webhookSpec.RulesFromCRDs). ok is
// false when the tag has no such file.
func (m *mirror) mutatingWebhooks(tag, file string, groups []string, crds []apiextv1.CustomResourceDefinition) (hooks []operators.Webhook, ok bool, err error) {
	if _, err := m.git("cat-file", "-e", tag+":"+file); err != nil {
		return nil, false, nil
	}
	data, err := m.git("show", tag+":"+file)
	if err != nil {
		return nil, false, err
	}
	dec := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := dec.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s:%s: %v", tag, file, err)
		}
		var cfg admregv1.MutatingWebhookConfiguration
		if err := yaml.Unmarshal(doc, &cfg); err != nil {
			return nil, false, fmt.Errorf("%s:%s: %v", tag, file, err)
		}
		if cfg.Kind != "MutatingWebhookConfiguration" {
			continue
		}
		for _, w := range cfg.Webhooks {
			h := operators.Webhook{Name: w.Name, File: file}
			if len(w.Rules) == 0 {
				w.Rules = crdRules(crds)
			}
			for _, r := range w.Rules {
				if !anyIn(r.APIGroups, groups) {
					continue
				}
				ops := make([]string, len(r.Operations))
				for i, o := range r.Operations {
					ops[i] = string(o)
				}
				h.Rules = append(h.Rules, operators.WebhookRule{APIGroups: r.APIGroups, APIVersions: r.APIVersions, Resources: r.Resources, Operations: ops})
			}
			if len(h.Rules) > 0 {
				hooks = append(hooks, h)
			}
		}
	}
	return hooks, true, nil
}

// crdRules is one rule per CRD, sorted by CRD name: its group, every
// version, its plural, on create and update.
func crdRules(crds []apiextv1.CustomResourceDefinition) []admregv1.RuleWithOperations {
	sorted := slices.Clone(crds)
	slices.SortFunc(sorted, func(a, b apiextv1.CustomResourceDefinition) int { return strings.Compare(a.Name, b.Name) })
	var out []admregv1.RuleWithOperations
	for _, c := range sorted {
		out = append(out, admregv1.RuleWithOperations{
			Operations: []admregv1.OperationType{admregv1.Create, admregv1.Update},
			Rule:       admregv1.Rule{APIGroups: []string{c.Spec.Group}, APIVersions: []string{"*"}, Resources: []string{c.Spec.Names.Plural}},
		})
	}
	return out
}

func anyIn(xs, set []string) bool {
	for _, x := range xs {
		for _, s := range set {
			if x == s || x == "*" {
				return true
			}
		}
	}
	return false
}
