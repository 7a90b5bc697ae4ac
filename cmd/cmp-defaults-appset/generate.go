package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	log "github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/generators"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	argov1alpha1 "github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// needsService are the generators that read a service (an SCM's API, a
// plugin, the cluster, an OCI registry): never run offline.
var needsService = map[string]string{
	"scmProvider":             "the SCM provider generator reads a Git hosting service's API",
	"pullRequest":             "the pull request generator reads a Git hosting service's API",
	"plugin":                  "the plugin generator calls a plugin service",
	"clusterDecisionResource": "the cluster decision resource generator reads resources of the cluster",
	"oci":                     "the OCI generator reads an OCI registry",
}

// maxInput bounds what is read: ApplicationSets and the clusters file.
const maxInput = 64 << 20

func generate(ctx context.Context, o options, stdin io.Reader) (*Output, error) {
	appsets, err := readAppSets(stdin)
	if err != nil {
		return nil, fmt.Errorf("reading the ApplicationSets: %w", err)
	}
	objs, err := clusterSecrets(o)
	if err != nil {
		return nil, err
	}
	for _, p := range projects(appsets) {
		objs = append(objs, &argov1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: p, Namespace: o.namespace}})
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := argov1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	gens := generators.GetGenerators(ctx, c, nil, o.namespace, localRepo{root: o.root, url: o.repoURL}, nil, generators.SCMConfig{}, nil)
	out := &Output{ApplicationSets: []Result{}}
	for _, as := range appsets {
		out.ApplicationSets = append(out.ApplicationSets, generateOne(as, gens, c))
	}
	return out, nil
}

func generateOne(as argov1alpha1.ApplicationSet, gens map[string]generators.Generator, c client.Client) Result {
	r := Result{Namespace: as.Namespace, Name: as.Name, Applications: []map[string]any{}}
	if why := unsupported(as.Spec.Generators); why != "" {
		r.NotEvaluated = why
		return r
	}
	apps, _, err := template.GenerateApplications(log.NewEntry(log.StandardLogger()), as, gens, &utils.Render{}, c)
	if err != nil {
		r.NotEvaluated = err.Error()
		return r
	}
	for i := range apps {
		apps[i].APIVersion, apps[i].Kind = "argoproj.io/v1alpha1", "Application"
		b, err := json.Marshal(apps[i])
		var m map[string]any
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			r.NotEvaluated = err.Error()
			return r
		}
		delete(m, "status")
		if md, ok := m["metadata"].(map[string]any); ok {
			delete(md, "creationTimestamp")
		}
		r.Applications = append(r.Applications, m)
	}
	return r
}

// unsupported names the first generator, at any depth, that needs a
// service.
func unsupported(gens []argov1alpha1.ApplicationSetGenerator) string {
	b, err := json.Marshal(gens)
	if err != nil {
		return err.Error()
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err.Error()
	}
	var found string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if why, ok := needsService[k]; ok && found == "" && x[k] != nil {
					found = why + ": not evaluated offline"
				}
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return found
}

func readAppSets(r io.Reader) ([]argov1alpha1.ApplicationSet, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInput {
		return nil, fmt.Errorf("more than %d bytes", maxInput)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []argov1alpha1.ApplicationSet
	for {
		var as argov1alpha1.ApplicationSet
		if err := dec.Decode(&as); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if as.Kind == "" {
			continue // an empty document
		}
		if as.Kind != "ApplicationSet" {
			return nil, fmt.Errorf("%s %s is not an ApplicationSet", as.Kind, as.Name)
		}
		if as.Namespace == "" {
			as.Namespace = "argocd"
		}
		out = append(out, as)
	}
}

// clusterSecrets reads the cluster Secrets of --clusters, as the API
// server stores them (stringData into data).
func clusterSecrets(o options) ([]client.Object, error) {
	if o.clusters == "" {
		return nil, nil
	}
	f, err := os.Open(o.clusters)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(io.LimitReader(f, maxInput), 4096)
	var out []client.Object
	for {
		var s corev1.Secret
		if err := dec.Decode(&s); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", o.clusters, err)
		}
		if s.Kind == "" {
			continue
		}
		if s.Kind != "Secret" || s.Labels["argocd.argoproj.io/secret-type"] != "cluster" {
			return nil, fmt.Errorf("%s: %s %s is not an Argo CD cluster Secret (label argocd.argoproj.io/secret-type: cluster)", o.clusters, s.Kind, s.Name)
		}
		if s.Namespace == "" {
			s.Namespace = o.namespace
		}
		for k, v := range s.StringData {
			if s.Data == nil {
				s.Data = map[string][]byte{}
			}
			s.Data[k] = []byte(v)
		}
		s.StringData = nil
		out = append(out, s.DeepCopy())
	}
}

// projects are the literal project names of the templates: the Git
// generator reads the AppProject (for its source integrity policy).
func projects(appsets []argov1alpha1.ApplicationSet) []string {
	seen := map[string]bool{}
	var out []string
	for _, as := range appsets {
		p := as.Spec.Template.Spec.Project
		if p != "" && !strings.Contains(p, "{{") && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
