package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// renderHelm renders a chart like `helm template NAME DIR --include-crds`
// (Helm 4, client-only): the same values merging, dependency handling,
// capabilities, schema validation, hook and kind ordering. The output order
// is helm's: CRDs from crds/ first, then manifests in install order, then
// hooks. NOTES.txt is not rendered into the output. Each object's Source is
// the template (or CRD file) path as helm prints it in "# Source:".
func renderHelm(ctx context.Context, opt Options) ([]manifest.Object, error) {
	return runCtx(ctx, "rendering Helm chart "+opt.Dir, func() ([]manifest.Object, error) {
		return helmTemplate(ctx, opt)
	})
}

func helmTemplate(ctx context.Context, opt Options) ([]manifest.Object, error) {
	chartDir := rel(opt.RepoRoot, opt.Dir)
	if opt.ReleaseName == "" {
		return nil, fmt.Errorf("chart %s: no release name given; set the release name (Argo CD uses the application name)", chartDir)
	}
	if err := chartutil.ValidateReleaseName(opt.ReleaseName); err != nil {
		return nil, &SettingError{Setting: settings.ReleaseName, Value: opt.ReleaseName, Err: err}
	}
	namespace := opt.Namespace
	if namespace == "" {
		namespace = "default" // helm template without a kube context
	}
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, &SettingError{Setting: settings.Namespace, Value: namespace, Err: fmt.Errorf("not a valid namespace name: %s", strings.Join(errs, "; "))}
	}
	caps, err := capabilities(opt.KubeVersion, opt.APIVersions)
	if err != nil {
		return nil, err
	}

	// User values first: their errors are the user's to fix, whatever the chart.
	vals, err := mergeValues(opt)
	if err != nil {
		return nil, err
	}

	ch, err := loadChart(ctx, opt, chartDir)
	if err != nil {
		return nil, err
	}

	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		return nil, fmt.Errorf("chart %s: processing dependencies: %w", chartDir, err)
	}
	top, err := util.ToRenderValuesWithSchemaValidation(ch, vals, common.ReleaseOptions{
		Name:      opt.ReleaseName,
		Namespace: namespace,
		Revision:  1,
		IsInstall: true,
	}, caps, true)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", chartDir, err)
	}
	if !opt.SkipSchemaValidation {
		if err := validateSchemas(opt.RepoRoot, ch, top["Values"]); err != nil {
			return nil, fmt.Errorf("chart %s: values don't meet the specifications of the schema(s) in the following chart(s):\n%w", chartDir, err)
		}
	}
	if kv := ch.Metadata.KubeVersion; kv != "" && !chartutil.IsCompatibleRange(kv, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart %s requires kubeVersion: %s which is incompatible with Kubernetes %s; set the kube version (Argo CD passes the cluster's)",
			chartDir, kv, caps.KubeVersion.Version)
	}

	files, err := engine.Engine{}.RenderWithContext(ctx, ch, top)
	if err != nil {
		return nil, fmt.Errorf("chart %s: helm template failed: %s (fix the template at that file:line, or give it the values it expects)", chartDir, shorten(err.Error()))
	}
	var size int64
	for _, f := range files {
		size += int64(len(f))
	}
	if err := opt.budget.take("the rendered templates of chart "+chartDir, size); err != nil {
		return nil, err
	}
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", chartDir, err)
	}

	return opt.helmObjects(ch, chartDir, files, manifests, hooks)
}

// helmObjects decodes what a chart rendered in helm's order: CRDs from
// crds/ first, then manifests in install order, then hooks.
func (opt Options) helmObjects(ch *chart.Chart, chartDir string, files map[string]string, manifests []releaseutil.Manifest, hooks []*release.Hook) ([]manifest.Object, error) {
	var out []manifest.Object
	for _, crd := range ch.CRDObjects() {
		if opt.skip.crds || opt.SkipCRDs {
			break
		}
		objs, err := opt.decode(filepath.ToSlash(crd.Filename), crd.File.Data)
		if err != nil {
			return nil, fmt.Errorf("chart %s: CRD file: %w", chartDir, err)
		}
		out = append(out, objs...)
	}
	docs := newDocIndex(files)
	docs.opt = opt
	for _, m := range manifests {
		objs, err := docs.decode(m.Name, m.Content)
		if err != nil {
			return nil, fmt.Errorf("chart %s: rendered template: %w", chartDir, err)
		}
		out = append(out, objs...)
	}
	for _, h := range hooks {
		if opt.skip.hooks || (opt.skip.tests || opt.SkipTests) && slices.ContainsFunc(h.Events, func(e release.HookEvent) bool { return e == release.HookTest }) {
			continue
		}
		objs, err := docs.decode(h.Path, h.Manifest)
		if err != nil {
			return nil, fmt.Errorf("chart %s: rendered hook: %w", chartDir, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// loadChart reads the chart of opt.Dir within the repository root and the
// render's budget, with its local dependencies.
func loadChart(ctx context.Context, opt Options, chartDir string) (*chart.Chart, error) {
	if err := checkSymlinks(ctx, opt.RepoRoot, opt.Dir); err != nil {
		return nil, fmt.Errorf("chart %s: %w", chartDir, err)
	}
	if err := scanChart(ctx, opt.Dir, chartDir, opt.budget); err != nil {
		return nil, fmt.Errorf("chart %s: %w", chartDir, err)
	}
	ch, err := loader.LoadDir(opt.Dir)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", chartDir, err)
	}
	if ch.Metadata == nil {
		return nil, fmt.Errorf("loading chart %s: Chart.yaml has no metadata", chartDir)
	}
	switch ch.Metadata.Type {
	case "", "application":
	default:
		return nil, fmt.Errorf("chart %s is of type %q and cannot be rendered on its own (only application charts can); "+
			"use it as a dependency of an application chart", chartDir, ch.Metadata.Type)
	}
	if err := addLocalDependencies(ctx, opt, ch, opt.Dir, 0); err != nil {
		return nil, err
	}
	if err := checkDependencies(ch, chartDir); err != nil {
		return nil, err
	}
	return ch, ctx.Err()
}

// maxErrorBytes bounds an error message from Helm: an 'include' that calls
// itself nests a thousand copies of the same text.
const maxErrorBytes = 1000

// shorten keeps an error message on one line and at most maxErrorBytes,
// keeping its start (where Helm names the template) and its end (the cause).
func shorten(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) <= maxErrorBytes {
		return msg
	}
	half := maxErrorBytes / 2
	return fmt.Sprintf("%s ... [%d bytes left out] ... %s", msg[:half], len(msg)-2*half, msg[len(msg)-half:])
}

// CheckKubeVersion refuses a kube version .Capabilities cannot hold.
func CheckKubeVersion(v string) error {
	_, err := capabilities(v, nil)
	return err
}

// capabilities builds .Capabilities like `helm template --kube-version
// --api-versions` does.
func capabilities(kubeVersion string, apiVersions []string) (*common.Capabilities, error) {
	caps := common.DefaultCapabilities.Copy()
	if kubeVersion != "" {
		kv, err := common.ParseKubeVersion(kubeVersion)
		if err != nil {
			return nil, fmt.Errorf("invalid kube version %q (want a version like 1.30 or v1.34.0): %w", kubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	// A fresh slice: never append into the shared default set.
	caps.APIVersions = append(slices.Clone(caps.APIVersions), apiVersions...)
	return caps, nil
}

// mergeValues merges values like helm's values.Options.MergeValues: values
// files in order, then the inline values (Argo CD's), then --set-json,
// --set, --set-string and --set-file, parsed by helm's strvals.
func mergeValues(opt Options) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range opt.ValuesFiles {
		if opt.IgnoreMissingValueFiles && missingInRepo(opt, f) {
			continue
		}
		data, err := readValuesFile(opt, f, "values file ")
		if err != nil {
			return nil, err
		}
		if err := manifest.CheckYAML(data, opt.budget.limit()); err != nil {
			return nil, fmt.Errorf("values file %q: %w", f, err)
		}
		m, err := loader.LoadValues(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("values file %q: %w", f, err)
		}
		base = loader.MergeMaps(base, m)
	}
	if strings.TrimSpace(opt.Values) != "" {
		if err := manifest.CheckYAML([]byte(opt.Values), opt.budget.limit()); err != nil {
			return nil, fmt.Errorf("inline values: %w", err)
		}
		m, err := loader.LoadValues(strings.NewReader(opt.Values))
		if err != nil {
			return nil, &SettingError{Setting: settings.Values, Err: err, Want: "a YAML map of Helm values"}
		}
		base = loader.MergeMaps(base, m)
	}
	for _, s := range opt.SetJSON {
		if t := strings.TrimSpace(s); t != "" && t[0] == '{' {
			// A whole JSON object, as helm takes it.
			var m map[string]any
			if err := json.Unmarshal([]byte(t), &m); err != nil {
				return nil, &SettingError{Setting: settings.SetJSON, Value: s, Err: err, Want: "a JSON object or key=<json>, as for helm --set-json"}
			}
			base = loader.MergeMaps(base, m)
			continue
		}
		if err := strvals.ParseJSON(s, base); err != nil {
			return nil, &SettingError{Setting: settings.SetJSON, Value: s, Err: err, Want: "key=<json>, as for helm --set-json"}
		}
	}
	for _, s := range opt.Set {
		if err := strvals.ParseInto(s, base); err != nil {
			return nil, &SettingError{Setting: settings.Set, Value: s, Err: err, Want: "key=value, as for helm --set"}
		}
	}
	for _, s := range opt.SetString {
		if err := strvals.ParseIntoString(s, base); err != nil {
			return nil, &SettingError{Setting: settings.SetString, Value: s, Err: err, Want: "key=value, as for helm --set-string"}
		}
	}
	for _, s := range opt.SetFile {
		// The file's text becomes the value; files are found like values
		// files (relative to the chart, inside the repository).
		read := func(rs []rune) (any, error) {
			data, err := readValuesFile(opt, string(rs), "set-file ")
			return string(data), err
		}
		if err := strvals.ParseIntoFile(s, base, read); err != nil {
			return nil, &SettingError{Setting: settings.SetFile, Value: s, Err: err, Want: "key=path, as for helm --set-file"}
		}
	}
	return base, nil
}

// readValuesFile reads a file named relative to the chart, or $REF/PATH
// relative to Refs[REF], inside that root and within the render's budget.
func readValuesFile(opt Options, f, what string) ([]byte, error) {
	root, dir, name, base := opt.RepoRoot, opt.Dir, f, "the chart directory"
	if ref, refRoot, rest := opt.ref(f); ref != "" {
		real, err := realPath(refRoot)
		if err != nil {
			return nil, fmt.Errorf("%s%q: ref %s: %w", what, f, ref, err)
		}
		root, dir, name, base = real, real, rest, "the root of the repository of ref "+ref
	}
	p, err := valuesFilePath(root, dir, name, base)
	if err != nil {
		return nil, err
	}
	data, err := readBounded(p, what+f, 0, opt.budget)
	if err != nil {
		return nil, fmt.Errorf("%s%q: %w", what, f, err)
	}
	return data, nil
}

// missingInRepo says whether the values file f names a path inside the
// repository where nothing is: what Argo CD's ignoreMissingValueFiles
// leaves out.
func missingInRepo(opt Options, f string) bool {
	root, dir := opt.RepoRoot, opt.Dir
	if ref, refRoot, rest := opt.ref(f); ref != "" {
		root, dir, f = refRoot, refRoot, rest
	}
	if f == "" || strings.Contains(f, "://") || filepath.IsAbs(f) {
		return false
	}
	p := filepath.Join(dir, filepath.FromSlash(f))
	_, err := os.Lstat(p)
	return within(root, p) && errors.Is(err, fs.ErrNotExist)
}

// ref splits a values file $REF/PATH whose REF is one of Refs into the
// ref, its root and PATH; ref is "" for any other file.
func (opt Options) ref(f string) (ref, root, rest string) {
	name, rest, ok := strings.Cut(strings.TrimPrefix(f, "$"), "/")
	if !ok || !strings.HasPrefix(f, "$") || opt.Refs[name] == "" {
		return "", "", ""
	}
	return name, opt.Refs[name], rest
}

// valuesFilePath resolves a values file given relative to the chart and
// refuses anything that is not a local file inside the repository.
func valuesFilePath(root, dir, f, base string) (string, error) {
	if f == "" {
		return "", fmt.Errorf("values file: empty name")
	}
	if strings.Contains(f, "://") {
		return "", fmt.Errorf("values file %q: %w: only files in the repository can be used (no network access)", f, ErrRemote)
	}
	if filepath.IsAbs(f) {
		return "", fmt.Errorf("values file %q: absolute paths are not allowed; give the path relative to %s %s", f, base, rel(root, dir))
	}
	p := filepath.Join(dir, filepath.FromSlash(f))
	if !within(root, p) {
		return "", fmt.Errorf("values file %q is %w %s; values files must be inside the repository", f, ErrOutsideRoot, root)
	}
	real, err := checkInside(root, p, fmt.Sprintf("values file %q", f))
	if err != nil {
		if !strings.Contains(err.Error(), "not found") {
			return "", err
		}
		return "", fmt.Errorf("values file %q not found (looked for %s; paths are relative to %s)", f, rel(root, p), base)
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("values file %q is not a regular file", f)
	}
	return real, nil
}

// checkDependencies does what `helm template` does before rendering: every
// dependency listed in Chart.yaml must be present in charts/.
func checkDependencies(ch *chart.Chart, chartDir string) error {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	var missing []string
	for _, d := range ch.Metadata.Dependencies {
		if d == nil || have[d.Name] {
			continue
		}
		desc := d.Name
		if d.Version != "" || d.Repository != "" {
			desc = fmt.Sprintf("%s (version %q from %q)", d.Name, d.Version, d.Repository)
		}
		missing = append(missing, desc)
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("chart %s: %w: %s listed in Chart.yaml but not found in %s/charts/; "+
		"cmp-defaults renders offline and does not download dependencies: run `helm dependency build %s` and commit the charts/ directory",
		chartDir, ErrMissingDependency, strings.Join(missing, ", "), chartDir, chartDir)
}

// docIndex finds where each rendered document sits in its template's output,
// to give objects a document number and a line (both in the rendered output
// of the template, as `helm template --show-only` would show it).
type docIndex struct {
	files map[string]string
	docs  map[string][]docPos
	opt   Options // decodes
}

type docPos struct {
	content string
	line    int
	used    bool
}

func newDocIndex(files map[string]string) *docIndex {
	return &docIndex{files: files, docs: map[string][]docPos{}}
}

func (d *docIndex) locate(name, content string) (doc, line int) {
	docs, ok := d.docs[name]
	if !ok {
		text := d.files[name]
		split := releaseutil.SplitManifests(text)
		keys := make([]string, 0, len(split))
		for k := range split {
			keys = append(keys, k)
		}
		sort.Sort(releaseutil.BySplitManifestsOrder(keys))
		pos := 0
		for _, k := range keys {
			c := split[k]
			line := 1
			if i := strings.Index(text[pos:], c); i >= 0 {
				line = 1 + strings.Count(text[:pos+i], "\n")
				pos += i + len(c)
			}
			docs = append(docs, docPos{content: c, line: line})
		}
		d.docs[name] = docs
	}
	for i := range docs {
		if !docs[i].used && docs[i].content == content {
			docs[i].used = true
			return i + 1, docs[i].line
		}
	}
	return 1, 1
}

func (d *docIndex) decode(name, content string) ([]manifest.Object, error) {
	doc, line := d.locate(name, content)
	objs, err := d.opt.decode(name, []byte(content))
	if err != nil {
		if e, ok := err.(*manifest.Error); ok {
			e.Doc, e.Line = doc, line+e.Line-1
		}
		return nil, err
	}
	for i := range objs {
		objs[i].Doc = doc
		objs[i].Line = line
	}
	return objs, nil
}
