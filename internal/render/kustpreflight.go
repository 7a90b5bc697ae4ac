package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/hasher"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// pluginKeys name builtin plugin configs: inline YAML documents, files
// of them, or kustomizations whose output they are.
var pluginKeys = map[string]bool{"generators": true, "transformers": true, "validators": true}

// patch weights of an entry: how many resources its bytes may reach.
const (
	notPatch = iota
	patchOne // a patch matched to one resource by its own name
	patchAll // a patch with a target selector
)

type entry struct {
	key, path string
	weight    int
}

// config is a plugin config and where it was written.
type config struct {
	res  *resource.Resource
	from string
}

// preflight is the check of one kustomization file.
type preflight struct {
	ctx             context.Context
	root, dir, name string
	seen            map[string]bool
	b               *budget
	rf              *resource.Factory

	paths, inline []entry
	configs       []config
	docs          int64 // resources below the kustomization
	patching      int64 // bytes of patches with a target
	patched       int64 // bytes of patches matched by name
	component     bool
	passOn        int64 // a component's patches with a target
}

// collect gathers the entries of k that name files or hold YAML.
func (pf *preflight) collect(k map[string]any) error {
	pf.rf = resource.NewFactory(&hasher.Hasher{})
	pf.component = k["kind"] == "Component"
	add := func(key string, v any, weight int) {
		s, ok := v.(string)
		if !ok {
			return
		}
		if strings.Contains(s, "\n") {
			pf.inline = append(pf.inline, entry{key, s, weight})
			if weight == patchAll {
				pf.patching += int64(len(s))
			} else if weight == patchOne {
				pf.patched += int64(len(s))
			}
		} else {
			pf.paths = append(pf.paths, entry{key, s, weight})
		}
	}
	for _, key := range kustListKeys {
		for _, s := range strings_(k[key]) {
			switch {
			case pluginKeys[key]:
				if err := pf.pluginEntry(key, s); err != nil {
					return err
				}
			case key == "patchesStrategicMerge":
				add(key, s, patchOne)
			default:
				add(key, s, notPatch)
			}
		}
	}
	for _, key := range kustPathKeys {
		items, _ := k[key].([]any)
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			weight := notPatch
			switch {
			case key == "patchesJson6902" || (key == "patches" && m["target"] != nil):
				weight = patchAll
			case key == "patches":
				weight = patchOne
			}
			add(key, m["path"], weight)
			if p, ok := m["patch"].(string); ok {
				pf.inline = append(pf.inline, entry{key, p, weight})
				if weight == patchAll {
					pf.patching += int64(len(p))
				} else {
					pf.patched += int64(len(p))
				}
			}
		}
	}
	if m, ok := k["openapi"].(map[string]any); ok {
		add("openapi", m["path"], notPatch)
	}
	for _, key := range []string{"configMapGenerator", "secretGenerator"} {
		items, _ := k[key].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			for _, f := range []string{"files", "envs", "env"} {
				for _, s := range strings_(m[f]) {
					if _, after, ok := strings.Cut(s, "="); ok && f == "files" {
						s = after
					}
					add(key+"."+f, s, notPatch)
				}
			}
		}
	}
	return nil
}

// pluginEntry takes an entry of generators, transformers or validators
// as kustomize does: YAML documents when they parse as resources, a path
// otherwise.
func (pf *preflight) pluginEntry(key, s string) error {
	if err := checkShape([]byte(s), pf.b); err != nil {
		return fmt.Errorf("%s: inline %s entry: %w", pf.name, key, err)
	}
	res, err := pf.rf.SliceFromBytes([]byte(s))
	if err != nil {
		pf.paths = append(pf.paths, entry{key, s, notPatch})
		return nil
	}
	for _, r := range res {
		pf.configs = append(pf.configs, config{r, "written inline under " + key})
	}
	return nil
}

func checkShape(data []byte, b *budget) error {
	return manifest.CheckYAMLShape(data, b.limit())
}

// entry checks a path entry: local, inside the repository; then counts
// what it brings (resources, patch bytes, plugin configs).
func (pf *preflight) entry(e entry) error {
	real, err := pf.local(e.key, e.path, "entry")
	if err != nil || real == "" {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil // kustomize reports it
	}
	switch {
	case fi.IsDir():
		_, r, err := preflightDir(pf.ctx, pf.root, real, pf.seen, pf.b)
		if err != nil {
			return err
		}
		pf.docs += r.docs
		pf.patching += r.patching
		if pluginKeys[e.key] {
			return pf.built(e.key, e.path, real)
		}
	case e.key == "resources":
		pf.docs += countResources(real)
	case pluginKeys[e.key]:
		data, err := readBounded(real, rel(pf.root, real), 0, pf.b)
		if err != nil {
			return err
		}
		if err := checkShape(data, pf.b); err != nil {
			return fmt.Errorf("%s: %w", rel(pf.root, real), err)
		}
		res, err := pf.rf.SliceFromBytes(data)
		if err != nil {
			return nil // kustomize reports it
		}
		for _, r := range res {
			pf.configs = append(pf.configs, config{r, "in " + rel(pf.root, real)})
		}
	case e.weight == patchAll:
		pf.patching += fi.Size()
	case e.weight == patchOne:
		pf.patched += fi.Size()
	}
	return nil
}

// maxPluginDirs bounds the kustomizations named under generators,
// transformers or validators in one render: the preflight builds each
// (and, inside it, the ones it names), so a chain of them costs its
// length squared.
const maxPluginDirs = 16

// builtMark marks, in the preflight's seen map, a directory built for its
// plugin configs.
const builtMark = "\x00built:"

// built adds the plugin configs that the kustomization in dir outputs:
// kustomize builds it and configures a plugin from every resource.
func (pf *preflight) built(key, entry, dir string) error {
	pf.seen[builtMark+dir] = true
	n := 0
	for k := range pf.seen {
		if strings.HasPrefix(k, builtMark) {
			n++
		}
	}
	if n > maxPluginDirs {
		return fmt.Errorf("%s: %s entry %q: more than %d kustomizations are named under generators, transformers or validators; "+
			"name their plugin configs directly (inline or by file)", pf.name, key, entry, maxPluginDirs)
	}
	fsys := &rootFS{root: pf.root, disk: filesys.MakeFsOnDisk(), budget: pf.b}
	m, err := runKrusty(fsys, dir)
	if err != nil {
		if v := fsys.firstViolation(); v != nil {
			return fmt.Errorf("%s: %s entry %q: %w", pf.name, key, entry, v)
		}
		return nil // kustomize reports it again
	}
	for _, r := range m.Resources() {
		pf.configs = append(pf.configs, config{r, "built from " + rel(pf.root, dir)})
	}
	return nil
}

// local checks that s, named under key, is a plain path inside the
// repository, and returns it with its links resolved ("" when it does
// not exist: kustomize reports that).
func (pf *preflight) local(key, s, kind string) (string, error) {
	local := filepath.Join(pf.dir, filepath.FromSlash(s))
	if why := remoteTarget(s, local); why != "" {
		return "", fmt.Errorf("%s: %s %s %q %s: %w: cmp-defaults renders offline and never fetches anything; "+
			"vendor it into the repository and refer to it by a relative path", pf.name, key, kind, s, why, ErrRemote)
	}
	what := fmt.Sprintf("%s: %s %s %q", pf.name, key, kind, s)
	if filepath.IsAbs(s) {
		local = filepath.Clean(s)
		if within(pf.root, local) {
			return "", fmt.Errorf("%s is an absolute path; write it relative to %s", what, rel(pf.root, pf.dir))
		}
	}
	if !within(pf.root, local) {
		return "", fmt.Errorf("%s (%s) is %w %s; only files inside the repository can be used", what, local, ErrOutsideRoot, pf.root)
	}
	real, err := checkInside(pf.root, local, fmt.Sprintf("%s (%s)", what, local))
	if err != nil {
		if errors.Is(err, ErrOutsideRoot) {
			return "", err
		}
		return "", nil
	}
	return real, nil
}

// listKind finds what may be a List kind, so that only such files are parsed.
var listKind = regexp.MustCompile(`kind["']?\s*:\s*["']?[A-Za-z0-9]*List\b`)

// countResources counts the resources of a file: its documents, with the
// items of a List (any kind ending in List that has items) counted one by
// one, as kustomize unpacks them.
func countResources(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > DefaultMaxBytes {
		return 0
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	n := int64(bytes.Count(data, []byte("\n---"))) + 1
	if !listKind.Match(data) {
		return n
	}
	var items int64
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var doc yamlv3.Node
		if dec.Decode(&doc) != nil {
			break
		}
		if len(doc.Content) == 1 {
			items += listItems(doc.Content[0], 0) - 1
		}
	}
	return n + max(items, 0)
}

// listItems is how many resources n stands for: 1, or its items when it
// is a List.
func listItems(n *yamlv3.Node, depth int) int64 {
	if n.Kind != yamlv3.MappingNode || depth > 10 {
		return 1
	}
	var kind string
	var items *yamlv3.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "kind":
			kind = n.Content[i+1].Value
		case "items":
			items = n.Content[i+1]
		}
	}
	if !strings.HasSuffix(kind, "List") || items == nil || items.Kind != yamlv3.SequenceNode {
		return 1
	}
	var c int64
	for _, it := range items.Content {
		c += listItems(it, depth+1)
	}
	return c
}

// plugins checks every builtin plugin config found: every file it makes
// kustomize load must be a local file inside the repository (kustomize
// fetches http and https addresses itself), Helm chart inflation is
// refused, and patches count toward the patch budget.
func (pf *preflight) plugins() error {
	for _, c := range pf.configs {
		gvk := c.res.GetGvk()
		if gvk.Group != "" || gvk.Version != "builtin" {
			continue // not a builtin: kustomize refuses it (builtins only)
		}
		data, err := c.res.AsYAML()
		if err != nil {
			continue
		}
		p := pluginCheck{pf: pf, what: fmt.Sprintf("%s %q (%s)", gvk.Kind, c.res.GetName(), c.from)}
		if err := p.check(gvk.Kind, data); err != nil {
			return err
		}
	}
	if pf.component {
		pf.passOn = pf.patching
	}
	return nil
}

type pluginCheck struct {
	pf   *preflight
	what string
}

// file checks a file a plugin config names under key, and returns its size.
func (p pluginCheck) file(key, value, path string) (int64, error) {
	if strings.Contains(strings.ToLower(value), "://") && !strings.Contains(strings.ToLower(path), "://") {
		path = value
	}
	real, err := p.pf.local(key, path, "entry of "+p.what)
	if err != nil || real == "" {
		return 0, err
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, nil
	}
	return fi.Size(), nil
}

// check reads a config the way the builtin plugin of kind does (the same
// JSON field names, matched without regard to case) and checks each file
// it would load.
func (p pluginCheck) check(kind string, data []byte) error {
	switch kind {
	case "HelmChartInflationGenerator":
		return fmt.Errorf("%s: %s: %s", p.pf.name, p.what, helmRefusal)
	case "ConfigMapGenerator", "SecretGenerator":
		var c struct {
			Files []string `json:"files"`
			Envs  []string `json:"envs"`
			Env   string   `json:"env"`
		}
		if yaml.Unmarshal(data, &c) != nil {
			return nil // kustomize reports it
		}
		for _, f := range c.Files {
			path := f
			if _, after, ok := strings.Cut(f, "="); ok {
				path = after
			}
			if _, err := p.file("files", f, path); err != nil {
				return err
			}
		}
		for _, f := range append(c.Envs, c.Env) {
			if f == "" {
				continue
			}
			if _, err := p.file("envs", f, f); err != nil {
				return err
			}
		}
	case "PatchTransformer", "PatchJson6902Transformer":
		var c struct {
			Path   string `json:"path"`
			Patch  string `json:"patch"`
			JSONOp string `json:"jsonOp"`
			Target any    `json:"target"`
		}
		if yaml.Unmarshal(data, &c) != nil {
			return nil
		}
		n := int64(len(c.Patch) + len(c.JSONOp))
		if c.Path != "" {
			size, err := p.file("path", c.Path, c.Path)
			if err != nil {
				return err
			}
			n += size
		}
		if c.Target != nil {
			p.pf.patching += n
		} else {
			p.pf.patched += n
		}
	case "PatchStrategicMergeTransformer":
		var c struct {
			Paths   []string `json:"paths"`
			Patches string   `json:"patches"`
		}
		if yaml.Unmarshal(data, &c) != nil {
			return nil
		}
		p.pf.patched += int64(len(c.Patches))
		for _, s := range c.Paths {
			if _, err := p.pf.rf.SliceFromBytes([]byte(s)); err == nil {
				p.pf.patched += int64(len(s)) // the patch itself, written inline
				continue
			}
			size, err := p.file("paths", s, s)
			if err != nil {
				return err
			}
			p.pf.patched += size
		}
	case "ReplacementTransformer":
		var c struct {
			Replacements []struct {
				Path string `json:"path"`
			} `json:"replacements"`
		}
		if yaml.Unmarshal(data, &c) != nil {
			return nil
		}
		for _, r := range c.Replacements {
			if r.Path == "" {
				continue
			}
			if _, err := p.file("replacements.path", r.Path, r.Path); err != nil {
				return err
			}
		}
	case "ValueAddTransformer":
		var c struct {
			TargetFilePath string `json:"targetFilePath"`
		}
		if yaml.Unmarshal(data, &c) != nil || c.TargetFilePath == "" {
			return nil
		}
		if _, err := p.file("targetFilePath", c.TargetFilePath, c.TargetFilePath); err != nil {
			return err
		}
	}
	return nil
}
