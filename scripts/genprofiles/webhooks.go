package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"

	admregv1 "k8s.io/api/admissionregistration/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// webhooks reads the entry's install manifest at every release and returns
// the mutating webhooks that match the operator's own API groups, one entry
// per run of consecutive releases over which a webhook's rules stay the same.
func webhooks(e *entry, m *mirror, rels []release) ([]operators.Webhook, error) {
	file := e.Webhooks.File
	var out []operators.Webhook
	open := map[string]int{} // webhook name -> its entry in out, if it ran up to the previous release
	found := false
	for _, r := range rels {
		hooks, ok, err := m.mutatingWebhooks(r.ref, file, e.Groups)
		if err != nil {
			return nil, err
		}
		found = found || ok
		next := map[string]int{}
		for _, h := range hooks {
			if i, ok := open[h.Name]; ok && reflect.DeepEqual(out[i].Rules, h.Rules) {
				out[i].To = r.tag
				next[h.Name] = i
				continue
			}
			h.From, h.To, h.File = r.tag, r.tag, file
			out = append(out, h)
			next[h.Name] = len(out) - 1
		}
		open = next
	}
	if !found {
		return nil, fmt.Errorf("webhooks: %s is at none of the releases %s..%s", file, rels[0].tag, rels[len(rels)-1].tag)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// mutatingWebhooks parses the MutatingWebhookConfigurations of a file at a
// tag and keeps the webhooks and rules on the given API groups; ok is false
// when the tag has no such file.
func (m *mirror) mutatingWebhooks(tag, file string, groups []string) (hooks []operators.Webhook, ok bool, err error) {
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
			h := operators.Webhook{Name: w.Name}
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
