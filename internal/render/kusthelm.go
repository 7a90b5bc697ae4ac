package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// helmChart is one helmCharts entry of a kustomization, with the fields
// kustomize's Helm inflation reads.
type helmChart struct {
	Name                  string         `json:"name"`
	Version               string         `json:"version"`
	Repo                  string         `json:"repo"`
	ReleaseName           string         `json:"releaseName"`
	Namespace             string         `json:"namespace"`
	ValuesFile            string         `json:"valuesFile"`
	AdditionalValuesFiles []string       `json:"additionalValuesFiles"`
	ValuesInline          map[string]any `json:"valuesInline"`
	ValuesMerge           string         `json:"valuesMerge"`
	IncludeCRDs           bool           `json:"includeCRDs"`
	SkipHooks             bool           `json:"skipHooks"`
	SkipTests             bool           `json:"skipTests"`
	KubeVersion           string         `json:"kubeVersion"`
	APIVersions           []string       `json:"apiVersions"`
	NameTemplate          string         `json:"nameTemplate"`
}

// helmGlobals is a kustomization's helmGlobals: where its charts are.
type helmGlobals struct {
	ChartHome string `json:"chartHome"`
}

// helmChartsOf reads the helmCharts and helmGlobals of a kustomization.
func helmChartsOf(k map[string]any) ([]helmChart, helmGlobals, error) {
	var charts []helmChart
	var g helmGlobals
	if err := convertYAML(k["helmCharts"], &charts); err != nil {
		return nil, g, fmt.Errorf("helmCharts: %v", err)
	}
	if err := convertYAML(k["helmGlobals"], &g); err != nil {
		return nil, g, fmt.Errorf("helmGlobals: %v", err)
	}
	return charts, g, nil
}

func convertYAML(in, out any) error {
	if in == nil {
		return nil
	}
	b, err := yaml.Marshal(in)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(b, out)
}

// chartDir is where kustomize looks for a chart: chartHome (default
// "charts", relative to the kustomization's directory) / name, or
// chartHome / name-version / name for a chart with a repo and a version
// (where kustomize would pull it to).
func (g helmGlobals) chartDir(kdir string, c helmChart) string {
	home := g.ChartHome
	if home == "" {
		home = "charts"
	}
	if !filepath.IsAbs(home) {
		home = filepath.Join(kdir, filepath.FromSlash(home))
	}
	if c.Version != "" && c.Repo != "" {
		home = filepath.Join(home, c.Name+"-"+c.Version)
	}
	return filepath.Join(home, c.Name)
}

// checkHelmCharts refuses, before kustomize runs, the Helm entries of a
// kustomization (named name, in kdir) that cannot render offline inside
// the repository: a chart that is not a directory under chartHome in the
// repository (kustomize would pull it), the older
// helmChartInflationGenerator, and settings it cannot honour.
func checkHelmCharts(root, kdir, name string, k map[string]any) error {
	if _, ok := k["helmChartInflationGenerator"]; ok {
		return fmt.Errorf("%s uses helmChartInflationGenerator, which is not supported; use helmCharts with the chart in the repository (chartHome)", name)
	}
	charts, g, err := helmChartsOf(k)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	for i, c := range charts {
		what := fmt.Sprintf("%s: helmCharts[%d] (chart %q)", name, i, c.Name)
		if c.Name == "" || filepath.Base(c.Name) != c.Name {
			return fmt.Errorf("%s: name must be the chart's directory name under chartHome", what)
		}
		dir := g.chartDir(kdir, c)
		if !within(root, dir) {
			return fmt.Errorf("%s: its chart directory %s is %w %s", what, dir, ErrOutsideRoot, root)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			if c.Repo != "" {
				return fmt.Errorf("%s is not in the repository (%s) and would be pulled from %s: %w: cmp-defaults renders offline; vendor the chart into that directory",
					what, rel(root, dir), c.Repo, ErrRemote)
			}
			return fmt.Errorf("%s: no chart directory %s", what, rel(root, dir))
		}
		switch {
		case c.ReleaseName == "":
			return fmt.Errorf("%s has no releaseName: kustomize would have helm generate a new random one on every build; set releaseName", what)
		case !slices.Contains([]string{"", "override", "replace"}, c.ValuesMerge):
			return fmt.Errorf("%s: valuesMerge %q is not supported (override or replace)", what, c.ValuesMerge)
		case c.ValuesInline != nil && len(c.AdditionalValuesFiles) > 0:
			return fmt.Errorf("%s: valuesInline together with additionalValuesFiles is not supported; move the inline values into a values file", what)
		case c.NameTemplate != "":
			return fmt.Errorf("%s: nameTemplate is not supported; set releaseName", what)
		}
	}
	return nil
}

// inflate renders the helmCharts of the kustomization file p (its data)
// with the Helm SDK, as kustomize's Helm support renders them with the
// helm binary, and returns the kustomization with the rendered manifests
// among its resources instead: files that exist only in f.
func (f *rootFS) inflate(p string, data []byte) ([]byte, error) {
	var k map[string]any
	if err := yaml.Unmarshal(data, &k); err != nil || k["helmCharts"] == nil {
		return data, nil // kustomize reports malformed YAML
	}
	charts, g, err := helmChartsOf(k)
	if err != nil {
		return nil, err
	}
	kdir := filepath.Dir(p)
	resources, _ := k["resources"].([]any)
	for i, c := range charts {
		out, err := f.renderChart(kdir, g, c)
		if err != nil {
			return nil, fmt.Errorf("%s: helmCharts[%d] (chart %q): %w", rel(f.root, p), i, c.Name, err)
		}
		name := fmt.Sprintf(".helmcharts-%d-%s.yaml", i, c.Name)
		f.mu.Lock()
		if f.virtual == nil {
			f.virtual = map[string][]byte{}
		}
		f.virtual[filepath.Join(kdir, name)] = out
		f.mu.Unlock()
		resources = append(resources, name)
	}
	k["resources"] = resources
	delete(k, "helmCharts")
	delete(k, "helmGlobals")
	return yaml.Marshal(k)
}

// renderChart renders one entry like `helm template` with kustomize's
// flags: its release name, namespace, values file and inline values, CRDs
// only with includeCRDs, hooks unless skipHooks, tests unless skipTests.
func (f *rootFS) renderChart(kdir string, g helmGlobals, c helmChart) ([]byte, error) {
	dir, err := realPath(g.chartDir(kdir, c))
	if err != nil {
		return nil, err
	}
	opt := Options{Dir: dir, RepoRoot: f.root, budget: f.budget,
		Helm: settings.Helm{ReleaseName: c.ReleaseName, Namespace: c.Namespace, KubeVersion: c.KubeVersion, APIVersions: c.APIVersions},
		// Each chart's documents are bounded on their own: kustomize's
		// output, where they are again, counts them for the render.
		Limits: f.limits.Counted(), Warn: f.warn,
		skip: helmSkip{crds: !c.IncludeCRDs, hooks: c.SkipHooks, tests: c.SkipTests}}
	if f.kubeVersion != "" {
		opt.KubeVersion = f.kubeVersion
	}
	if len(f.apiVersions) > 0 {
		opt.APIVersions = f.apiVersions
	}
	files := c.AdditionalValuesFiles
	if c.ValuesFile != "" && !(c.ValuesMerge == "replace" && c.ValuesInline != nil) {
		files = append([]string{c.ValuesFile}, files...)
	}
	for _, v := range files {
		// kustomize names them from the kustomization; the renderer from the chart.
		r, err := filepath.Rel(dir, filepath.Join(kdir, filepath.FromSlash(v)))
		if err != nil {
			return nil, err
		}
		opt.ValuesFiles = append(opt.ValuesFiles, filepath.ToSlash(r))
	}
	if c.ValuesInline != nil {
		b, err := yaml.Marshal(c.ValuesInline)
		if err != nil {
			return nil, err
		}
		opt.Values = string(b)
	}
	ctx := f.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	objs, err := helmTemplate(ctx, opt)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for _, o := range objs {
		// As kustomize marks what helm made: its namespace transformer
		// leaves these objects alone, and the mark is not printed.
		md, _ := o.Data["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			o.Data["metadata"] = md
		}
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			md["annotations"] = ann
		}
		ann[konfig.HelmGeneratedAnnotation] = "true"
		b, err := yaml.Marshal(o.Data)
		if err != nil {
			return nil, err
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	return out.Bytes(), nil
}
