package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/operators/extract"
)

// mirror reads a bare git repository with the git command: tags, trees and
// blobs, never a work tree. Parsed CRD files are kept by blob id, as most
// files do not change from one patch release to the next.
type mirror struct {
	gitDir string
	parsed map[string][]apiextv1.CustomResourceDefinition
}

func newMirror(gitDir string) *mirror {
	return &mirror{gitDir: gitDir, parsed: map[string][]apiextv1.CustomResourceDefinition{}}
}

func (m *mirror) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir=" + m.gitDir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// releases lists the tags the filter selects, oldest first, each with the
// UTC day its tag (or, for a lightweight tag, its commit) was created.
func (m *mirror) releases(f *tagFilter) ([]release, error) {
	out, err := m.git("for-each-ref", "--format=%(refname:strip=2) %(creatordate:unix)", "refs/tags")
	if err != nil {
		return nil, err
	}
	var rels []release
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ref, unix, ok := strings.Cut(line, " ")
		tag, prefixed := strings.CutPrefix(ref, f.Prefix)
		if !ok || !prefixed || !f.selects(ref, tag) {
			continue
		}
		sec, err := strconv.ParseInt(unix, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("tag %s: date %q: %v", tag, unix, err)
		}
		rels = append(rels, release{tag: tag, ref: ref, date: time.Unix(sec, 0).UTC().Format("2006-01-02")})
	}
	sort.Slice(rels, func(i, j int) bool { return operators.CompareVersions(rels[i].tag, rels[j].tag) < 0 })
	if len(rels) == 0 || rels[0].tag != f.From || rels[len(rels)-1].tag != f.To {
		got := "none"
		if len(rels) > 0 {
			got = rels[0].tag + ".." + rels[len(rels)-1].tag
		}
		return nil, fmt.Errorf("the mirror's tags give %s, want %s..%s: fetch the repository again or fix the catalog", got, f.From, f.To)
	}
	return rels, nil
}

// treeFile is a file at a tag.
type treeFile struct{ path, blob string }

// files lists the YAML files of a path spec at a tag (a git ref), sorted
// by path. A symbolic link (Knative links CRDs of the projects it vendors)
// is read as the file it points to in the same tree.
func (m *mirror) files(tag string, p pathSpec) ([]treeFile, error) {
	var files []treeFile
	for _, dir := range p.Dir {
		f, err := m.dirFiles(tag, dir, p)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, nil
}

// dirFiles lists the YAML files of one directory of a path spec at a tag.
func (m *mirror) dirFiles(tag, dir string, p pathSpec) ([]treeFile, error) {
	out, err := m.git("ls-tree", "-r", "-z", tag, "--", dir+"/")
	if err != nil {
		return nil, err
	}
	var files []treeFile
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta) // mode type id
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
			continue
		}
		if !p.Recursive && path.Dir(name) != dir {
			continue
		}
		if skipped(p.Skip, path.Base(name)) {
			continue
		}
		if f[0] == "120000" {
			target, blob, err := m.link(tag, name, f[2])
			if err != nil {
				return nil, err
			}
			name, f[2] = target, blob
		}
		files = append(files, treeFile{path: name, blob: f[2]})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no YAML files under %s", tag, dir)
	}
	return files, nil
}

// link resolves the symbolic link name (its blob holds the target path,
// relative to the link's directory) to the path and blob of the file it
// points to at tag; a link out of the tree, to a link or to no file is an
// error.
func (m *mirror) link(tag, name, blob string) (string, string, error) {
	data, err := m.git("cat-file", "blob", blob)
	if err != nil {
		return "", "", err
	}
	target := path.Join(path.Dir(name), string(data))
	if strings.HasPrefix(target, "../") || path.IsAbs(string(data)) {
		return "", "", fmt.Errorf("%s:%s: links out of the repository (%s)", tag, name, data)
	}
	out, err := m.git("ls-tree", "-z", tag, "--", target)
	if err != nil {
		return "", "", err
	}
	f := strings.Fields(strings.SplitN(string(out), "\t", 2)[0])
	if len(f) != 3 || f[0] == "120000" || f[1] != "blob" {
		return "", "", fmt.Errorf("%s:%s: links to %s, which is no file", tag, name, target)
	}
	return target, f[2], nil
}

// crds parses the CRDs of one file, once per blob.
func (m *mirror) crds(tag string, f treeFile) ([]apiextv1.CustomResourceDefinition, error) {
	if c, ok := m.parsed[f.blob]; ok {
		return c, nil
	}
	data, err := m.git("cat-file", "blob", f.blob)
	if err != nil {
		return nil, err
	}
	c, err := extract.ParseCRDs([]extract.CRDFile{{Name: tag + ":" + f.path, Data: data}})
	if err != nil {
		return nil, err
	}
	m.parsed[f.blob] = c
	return c, nil
}

// generateMirror returns file name -> content for one operator read from a
// bare git mirror: a profile per change point and the index of every
// selected release.
func generateMirror(e *entry, m *mirror, learnedDir string) (map[string][]byte, error) {
	rels, err := m.releases(&e.Tags)
	if err != nil {
		return nil, err
	}
	mutations := map[string]string{}             // tag -> where its learned mutations come from
	relHooks := map[string][]operators.Webhook{} // tag -> its manifest's webhooks, for tags that have the manifest
	files := map[string][]byte{}
	var prev *operators.Profile
	var points []string
	for _, r := range rels {
		spec := e.pathAt(r.tag)
		tree, err := m.files(r.ref, spec)
		if err != nil {
			return nil, err
		}
		var all []apiextv1.CustomResourceDefinition
		prov := &operators.Provenance{Repository: e.Repository, Tag: r.ref}
		for _, f := range tree {
			c, err := m.crds(r.tag, f)
			if err != nil {
				return nil, err
			}
			if len(c) == 0 {
				continue
			}
			for _, crd := range c {
				if err := e.checkGroup(crd.Name, crd.Spec.Group, r.tag+":"+f.path); err != nil {
					return nil, err
				}
			}
			all = append(all, c...)
			prov.Files = append(prov.Files, operators.ProvenanceFile{Path: f.path, Blob: f.blob})
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("%s: no CustomResourceDefinition under %s", r.tag, strings.Join(spec.Dir, ", "))
		}
		e.setConversion(r.tag, all)
		p, err := extract.Profile(e.Name, r.tag, all)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.tag, err)
		}
		p.Channel = e.Channel
		learned := ""
		if e.Webhooks != nil {
			var ruleCRDs []apiextv1.CustomResourceDefinition
			if e.Webhooks.RulesFromCRDs {
				ruleCRDs = all
			}
			var hooks []operators.Webhook
			for _, file := range e.Webhooks.Manifest {
				h, ok, err := m.mutatingWebhooks(r.ref, file, e.Groups, ruleCRDs)
				if err != nil {
					return nil, err
				}
				if ok {
					hooks = append(hooks, h...)
					relHooks[r.tag] = hooks
				}
			}
			if learned, err = addLearned(learnedDir, e.Name, r.tag, all, p); err != nil {
				return nil, err
			}
			markWebhooks(hooks, all, p)
			if e.MutationsOnly {
				onlyMutations(p)
			}
			if learned != "" && len(e.Webhooks.Learns) > 0 {
				for i := range p.Resources {
					res := &p.Resources[i]
					res.WebhookUnknown = res.Webhook != "" && len(res.Mutations) == 0 && !slices.Contains(e.Webhooks.Learns, res.Webhook)
				}
			}
			mutations[r.tag] = "none learned"
			if learned != "" {
				mutations[r.tag] = "learned from " + learned
			}
		}
		if prev != nil && operators.SameRules(prev, p) {
			continue
		}
		ch := ""
		if e.Channel != "" {
			ch = " (" + e.Channel + " channel)"
		}
		p.Description = fmt.Sprintf("Admission defaults of %s %s%s: CRD schema defaults of every served version, generated by 'cmp-defaults profiles extract' from %s at %s.", e.Name, r.tag, ch, e.describe(), r.ref)
		if e.MutationsOnly {
			p.Description = fmt.Sprintf("Webhook defaults of %s %s, selected next to the operator's release: no CRD schema defaults; the kinds %s registers at %s, served by the CRDs of %s.", e.Name, r.tag, strings.Join(e.Webhooks.Manifest, ", "), r.ref, e.describe())
		}
		if learned != "" {
			p.Description += fmt.Sprintf(" Mutations: the operator's mutating-webhook defaults, learned by scripts/learn-webhooks.sh from %s served in a real kube-apiserver.", learned)
		}
		p.Provenance = prov
		b, err := operators.Marshal(p)
		if err != nil {
			return nil, err
		}
		files[r.tag+".yaml"] = b
		points = append(points, r.tag)
		prev = p
	}
	var hooks []operators.Webhook
	if e.Webhooks != nil {
		if hooks, err = webhookRanges(e.Webhooks.Manifest, rels, relHooks); err != nil {
			return nil, err
		}
	}
	b, err := indexFile(e, rels, points, hooks, mutations)
	if err != nil {
		return nil, err
	}
	files["index.yaml"] = b
	return files, nil
}

// onlyMutations keeps of p the resources a webhook matches or has
// mutations for, without their schema defaults: the profile of an optional
// webhook, selected next to the operator's own.
func onlyMutations(p *operators.Profile) {
	p.Resources = slices.DeleteFunc(p.Resources, func(r operators.Resource) bool { return r.Webhook == "" && len(r.Mutations) == 0 })
	for i := range p.Resources {
		r := &p.Resources[i]
		r.Maps, r.Defaults, r.ReadDefaults, r.StorageVersion, r.Conversion = nil, nil, nil, "", ""
	}
}

// markWebhooks names, on each resource of p, the mutating webhook that
// matches it on create or update (group, version and the CRD's plural). A
// served kind a webhook matches gets a resource even without schema
// defaults (Tekton's Pipeline): without one its webhook would be
// unknown to every command.
func markWebhooks(hooks []operators.Webhook, crds []apiextv1.CustomResourceDefinition, p *operators.Profile) {
	plural := map[string]string{}
	for _, c := range crds {
		plural[c.Spec.Group+"/"+c.Spec.Names.Kind] = c.Spec.Names.Plural
		for _, v := range c.Spec.Versions {
			if v.Served && hookOn(hooks, c.Spec.Group, v.Name, c.Spec.Names.Plural) != "" && !slices.ContainsFunc(p.Resources, func(r operators.Resource) bool {
				return r.Group == c.Spec.Group && r.Version == v.Name && r.Kind == c.Spec.Names.Kind
			}) {
				p.Resources = append(p.Resources, operators.Resource{Group: c.Spec.Group, Version: v.Name, Kind: c.Spec.Names.Kind, Storage: v.Storage})
			}
		}
	}
	operators.SortResources(p.Resources)
	for i := range p.Resources {
		res := &p.Resources[i]
		if h := hookOn(hooks, res.Group, res.Version, plural[res.Group+"/"+res.Kind]); h != "" {
			res.Webhook = h
		}
	}
}

// hookOn is the webhook that matches a resource of group, version and
// plural on create or update (the last one listed when several do).
func hookOn(hooks []operators.Webhook, group, version, plural string) string {
	name := ""
	for _, h := range hooks {
		for _, rule := range h.Rules {
			if (matches(rule.Operations, "CREATE") || matches(rule.Operations, "UPDATE")) &&
				matches(rule.APIGroups, group) && matches(rule.APIVersions, version) && matches(rule.Resources, plural) {
				name = h.Name
			}
		}
	}
	return name
}

func matches(list []string, s string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, s)
}

// addLearned adds the mutations learned for a release
// (<learnedDir>/<operator>/<tag>.yaml, written by scripts/learn-webhooks.sh)
// to p, and returns the module they were learned from ("" for none). A kind
// the CRDs serve without schema defaults (Knative's Route) is added to p.
func addLearned(learnedDir, op, tag string, crds []apiextv1.CustomResourceDefinition, p *operators.Profile) (string, error) {
	file := filepath.Join(learnedDir, op, tag+".yaml")
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	lp, err := operators.ParseProfile(file, data)
	if err != nil {
		return "", err
	}
	if lp.Learned == nil || lp.Learned.Module == "" {
		return "", fmt.Errorf("%s: no learned.module: learn it with scripts/learn-webhooks.sh", file)
	}
	for _, lr := range lp.Resources {
		i := slices.IndexFunc(p.Resources, func(r operators.Resource) bool {
			return r.Group == lr.Group && r.Version == lr.Version && r.Kind == lr.Kind
		})
		if i < 0 && served(crds, lr.Group, lr.Version, lr.Kind) {
			p.Resources = append(p.Resources, operators.Resource{Group: lr.Group, Version: lr.Version, Kind: lr.Kind})
			i = len(p.Resources) - 1
		}
		if i < 0 {
			return "", fmt.Errorf("%s: %s/%s %s is not served by the release's CRDs", file, lr.Group, lr.Version, lr.Kind)
		}
		p.Resources[i].Mutations = lr.Mutations
		p.Resources[i].Rewrites = lr.Rewrites
	}
	operators.SortResources(p.Resources)
	return lp.Learned.Module, nil
}

func served(crds []apiextv1.CustomResourceDefinition, group, version, kind string) bool {
	for _, c := range crds {
		if c.Spec.Group != group || c.Spec.Names.Kind != kind {
			continue
		}
		for _, v := range c.Spec.Versions {
			if v.Name == version && v.Served {
				return true
			}
		}
	}
	return false
}

func skipped(globs []string, base string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, base); ok {
			return true
		}
	}
	return false
}

// writeNewest copies the CRD files of the entry's newest release into
// <dir>/<name>/<tag>/, the layout of a directory source, so that checks run
// on the upstream files themselves rather than on a profile.
func writeNewest(e *entry, m *mirror, dir string) (string, error) {
	rels, err := m.releases(&e.Tags)
	if err != nil {
		return "", err
	}
	tag := rels[len(rels)-1].tag
	tree, err := m.files(rels[len(rels)-1].ref, e.pathAt(tag))
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, e.Name, tag)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	seen := map[string]string{}
	for _, f := range tree {
		c, err := m.crds(tag, f)
		if err != nil {
			return "", err
		}
		if len(c) == 0 {
			continue // no CustomResourceDefinition in it
		}
		base := path.Base(f.path)
		if other, ok := seen[base]; ok {
			return "", fmt.Errorf("%s: %s and %s have the same file name", tag, other, f.path)
		}
		seen[base] = f.path
		data, err := m.git("cat-file", "blob", f.blob)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(out, base), data, 0o644); err != nil {
			return "", err
		}
	}
	return tag, nil
}
