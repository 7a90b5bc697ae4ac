package hostile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Cheap inputs must not buy the whole deadline of CPU: globs are matched
// in linear time, deep or costly nesting is refused before kustomize walks
// it, and every way of writing a patch counts toward the patch budget.
// Every case: exit 1, nothing on stdout, one clean line under 16 KiB on
// stderr, within generate's 40 s deadline plus 5 s.

// backtracking is a 63-byte glob that gobwas/glob matches by backtracking.
var backtracking = strings.Repeat("*a", 31) + "*"

var longName = "app/" + strings.Repeat("a", 200) + ".yaml"

// nested writes a ConfigMap whose data nests levels deep, written with
// open and close around each level.
func nested(open, close string, levels int) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  x: " + strings.Repeat(open, levels) + "1" + strings.Repeat(close, levels) + "\n"
}

// blockNested is a ConfigMap nesting levels deep in block sequences.
func blockNested(levels int) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  x:\n  " + strings.Repeat("- ", levels) + "1\n"
}

// manyNested is docs ConfigMaps, each nesting levels deep: under the depth
// limit, but costly for kustomize (it copies each mapping's subtree).
func manyNested(docs, levels int) string {
	var b strings.Builder
	for i := 0; i < docs; i++ {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm%d}\ndata:\n  x: %s1%s\n", i, strings.Repeat("{a: ", levels), strings.Repeat("}", levels))
	}
	return b.String()
}

// patchCase writes 300 ConfigMaps (or a List of 3,000) and a kustomization
// that patches them all with a 1 MB patch written as kustomization says.
func patchCase(kustomization string, list bool, patchFile string) func(t *testing.T, repo string) {
	return func(t *testing.T, repo string) {
		var res strings.Builder
		if list {
			res.WriteString("apiVersion: v1\nkind: List\nitems:\n")
			for i := 0; i < 3000; i++ {
				fmt.Fprintf(&res, "- {apiVersion: v1, kind: ConfigMap, metadata: {name: cm%d}}\n", i)
			}
		} else {
			for i := 0; i < 300; i++ {
				fmt.Fprintf(&res, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm%d}\n", i)
			}
		}
		big := strings.Repeat("x", 1<<20)
		files := map[string]string{
			"app/kustomization.yaml": kustomization,
			"app/cms.yaml":           res.String(),
			"app/smp.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: any}\ndata:\n  big: \"" + big + "\"\n",
			"app/json.yaml":          `[{"op": "add", "path": "/data", "value": {"big": "` + big + `"}}]` + "\n",
		}
		if patchFile != "" {
			files["app/"+patchFile] = strings.ReplaceAll(files["app/"+patchFile], "BIG", big[:512<<10]) // a kustomization file holds at most 1 MiB
		}
		for name, content := range files {
			p := filepath.Join(repo, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var cpuCases = []hostileCase{
	// Globs.
	{name: "63-byte exclude glob that backtracks", files: map[string]string{longName: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"}, app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "ARGOCD_ENV_CMP_DEFAULTS_EXCLUDE="+backtracking), want: "no manifest files", code: 1},
	{name: "include glob over 1 KiB", files: map[string]string{longName: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"}, app: "app",
		args: []string{"generate"}, env: append(generateEnv("app", ""), "ARGOCD_ENV_CMP_DEFAULTS_INCLUDE="+strings.Repeat("*a", 600)), want: "more than the 1024 a pattern may have", code: 1},

	// Nesting, before kustomize walks it.
	{name: "kustomize resource nested 9,000 levels in flow mappings (45 KB)", files: map[string]string{"app/kustomization.yaml": "resources: [deep.yaml]\n", "app/deep.yaml": nested("{a: ", "}", 9000)}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "app/deep.yaml: document 1 (line 1): nested too deep: more than 100 levels", code: 1},
	{name: "kustomize resource nested 9,000 levels in flow mappings written as JSON (36 KB)", files: map[string]string{"app/kustomization.yaml": "resources: [deep.json]\n", "app/deep.json": `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep"}, "data": ` + strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000) + "}\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "app/deep.json: document 1 (line 1): nested too deep", code: 1},
	{name: "kustomize resource nested 9,000 levels in block sequences", files: map[string]string{"app/kustomization.yaml": "resources: [deep.yaml]\n", "app/deep.yaml": blockNested(9000)}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "app/deep.yaml", code: 1},
	{name: "kustomize resource nested 9,000 levels in flow sequences", files: map[string]string{"app/kustomization.yaml": "resources: [deep.yaml]\n", "app/deep.yaml": nested("[", "]", 9000)}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "app/deep.yaml", code: 1},
	{name: "kustomize patch file nested 9,000 levels", files: map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\npatches:\n- path: deep.yaml\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\n", "app/deep.yaml": nested("{a: ", "}", 9000)}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "app/deep.yaml", code: 1},
	{name: "kustomize inline patch nested 9,000 levels", files: map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\npatches:\n- patch: |\n" + indent(nested("{a: ", "}", 9000), "    ") + "\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\n"}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "inline patches entry", code: 1},
	{name: "kustomize resource nested 9,000 levels through aliases", setup: func(t *testing.T, repo string) {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  a0: &a0 {x: 1}\n")
		for i := 1; i < 9000; i++ {
			fmt.Fprintf(&b, "  a%d: &a%d {x: *a%d}\n", i, i, i-1)
		}
		os.MkdirAll(filepath.Join(repo, "app"), 0o755)
		os.WriteFile(filepath.Join(repo, "app/kustomization.yaml"), []byte("resources: [deep.yaml]\n"), 0o644)
		os.WriteFile(filepath.Join(repo, "app/deep.yaml"), []byte(b.String()), 0o644)
	}, app: "app", args: []string{"generate"}, env: generateEnv("app", ""), want: "app/deep.yaml", code: 1},
	{name: "kustomize: 2,000 resources nested 50 levels (1 MB)", files: map[string]string{"app/kustomization.yaml": "resources: [deep.yaml]\n", "app/deep.yaml": manyNested(2000, 50)}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "more than 8 per byte of the file", code: 1},
	{name: "plain directory: resource nested 9,000 levels", files: map[string]string{"app/deep.yaml": nested("{a: ", "}", 9000)}, app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "nesting deeper than 100 levels", code: 1},
	{name: "Helm template nested 9,000 levels", files: with(chart, map[string]string{"app/templates/es.yaml": nested("{a: ", "}", 9000)}), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "nesting deeper than 100 levels", code: 1},

	// Every way of writing a patch counts toward the same budget.
	{name: "kustomize: a 1 MB patch under patchesJson6902 applied to 300 objects", setup: patchCase("resources: [cms.yaml]\npatchesJson6902:\n- path: json.yaml\n  target: {version: v1, kind: ConfigMap, name: \"cm.*\"}\n", false, ""), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "could generate 314", code: 1},
	{name: "kustomize: a 1 MB patch under patches applied to a List of 3,000 objects", setup: patchCase("resources: [cms.yaml]\npatches:\n- path: smp.yaml\n  target: {kind: ConfigMap}\n", true, ""), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "applied to up to 3000 resources", code: 1},
	{name: "kustomize: a 512 KB inline patchesJson6902 patch applied to 300 objects", setup: patchCase("resources: [cms.yaml]\npatchesJson6902:\n- target: {version: v1, kind: ConfigMap, name: \"cm.*\"}\n  patch: |\n    [{\"op\": \"add\", \"path\": \"/data\", \"value\": {\"big\": \"BIG\"}}]\n", false, "kustomization.yaml"), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "could generate 157", code: 1},
	{name: "kustomize: a 1 MB PatchTransformer config applied to 300 objects", setup: patchCase("resources: [cms.yaml]\ntransformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: p}\n  path: smp.yaml\n  target: {kind: ConfigMap}\n", false, ""), app: "app",
		args: []string{"generate"}, env: generateEnv("app", ""), want: "could generate 314", code: 1},
	{name: "kustomize: a 1 MB patch of a component applied to 300 objects", setup: func(t *testing.T, repo string) {
		patchCase("resources: [cms.yaml]\ncomponents: [comp]\n", false, "")(t, repo)
		os.MkdirAll(filepath.Join(repo, "app/comp"), 0o755)
		os.Rename(filepath.Join(repo, "app/smp.yaml"), filepath.Join(repo, "app/comp/smp.yaml"))
		os.WriteFile(filepath.Join(repo, "app/comp/kustomization.yaml"), []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: smp.yaml\n  target: {kind: ConfigMap}\n"), 0o644)
	}, app: "app", args: []string{"generate"}, env: generateEnv("app", ""), want: "could generate 314", code: 1},
}

func TestHostileCPU(t *testing.T) {
	for _, tc := range cpuCases {
		tc.oneLine, tc.clean = true, true
		if tc.maxTime == 0 {
			tc.maxTime = 45 * time.Second
		}
		if tc.maxRSS == 0 {
			tc.maxRSS = 1024
		}
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

// A glob that backtracks in gobwas/glob selects its file at once.
func TestBacktrackingIncludeMatches(t *testing.T) {
	repo := t.TempDir()
	p := filepath.Join(repo, longName)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: long}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "generate")
	cmd.Dir = filepath.Join(repo, "app")
	cmd.Env = append([]string{"PATH=/nonexistent", "HOME=" + repo, "ARGOCD_ENV_CMP_DEFAULTS_INCLUDE=" + backtracking}, generateEnv("app", "")...)
	start := time.Now()
	out, err := cmd.Output()
	t.Logf("measured: %.2f s", time.Since(start).Seconds())
	if err != nil {
		t.Fatalf("%v: %s", err, err.(*exec.ExitError).Stderr)
	}
	if !strings.Contains(string(out), `"long"`) {
		t.Errorf("output lacks the ConfigMap: %s", out)
	}
	if took := time.Since(start); took > 45*time.Second {
		t.Errorf("took %v", took)
	}
}

// A chain of kustomizations named under generators is built once per
// level by the preflight: at most 16 are allowed.
func TestPluginDirectoryChain(t *testing.T) {
	files := map[string]string{}
	dir := "app"
	for i := 0; i < 24; i++ {
		files[dir+"/kustomization.yaml"] = "generators: [next]\n"
		dir += "/next"
	}
	files[dir+"/kustomization.yaml"] = "resources: []\n"
	runCase(t, hostileCase{files: files, app: "app", args: []string{"generate"}, env: generateEnv("app", ""),
		want: "more than 16 kustomizations are named under generators", code: 1, oneLine: true, clean: true, maxTime: 45 * time.Second, maxRSS: 1024})
}
