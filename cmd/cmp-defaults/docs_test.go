package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The console examples of docs/migrating.md are run as written, against the
// Application of its worked example in a checkout holding the repository's
// examples, and must print what the page shows (examples cut short with
// "...", and indented excerpts, are skipped).
func TestMigratingExamples(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "migrating.md"))
	if err != nil {
		t.Fatal(err)
	}
	app := regexp.MustCompile("(?s)```yaml\n(apiVersion: argoproj.io/v1alpha1\nkind: Application\n.*?)```").FindSubmatch(doc)
	if app == nil {
		t.Fatal("no Application in docs/migrating.md")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), app[1], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(repo, "examples"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	n := 0
	// Blocks at the start of a line; indented ones are excerpts of other setups.
	for _, block := range regexp.MustCompile("(?ms)^```console\n(.*?)^```").FindAllSubmatch(doc, -1) {
		for _, ex := range strings.Split(string(block[1]), "$ ")[1:] {
			cmdline, want, _ := strings.Cut(ex, "\n")
			args := strings.Fields(cmdline)
			if args[0] != "cmp-defaults" || strings.Contains(want, "\n...\n") {
				continue
			}
			var out, errb bytes.Buffer
			run(context.Background(), args[1:], strings.NewReader(""), &out, &errb)
			if out.String() != want {
				t.Errorf("%s: docs/migrating.md shows\n%s\nbut it prints\n%s%s", cmdline, want, out.String(), errb.String())
			}
			n++
		}
	}
	if n < 2 {
		t.Errorf("only %d examples checked", n)
	}
}

// The RBAC example of docs/cluster-checks.md grants check and profiles
// learn every API group of every shipped operator (profiles/catalog.yaml),
// not just the first two.
func TestClusterChecksRBACCoversCatalog(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cluster-checks.md")
	if err != nil {
		t.Fatal(err)
	}
	role := regexp.MustCompile("(?s)```yaml\n(apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n.*?)```").FindSubmatch(doc)
	if role == nil {
		t.Fatal("no ClusterRole in docs/cluster-checks.md")
	}
	var cr struct {
		Rules []struct {
			APIGroups []string `json:"apiGroups"`
			Verbs     []string `json:"verbs"`
		} `json:"rules"`
	}
	if err := yaml.Unmarshal(role[1], &cr); err != nil {
		t.Fatalf("docs/cluster-checks.md ClusterRole: %v", err)
	}
	granted := map[string]bool{}
	for _, r := range cr.Rules {
		if strings.Join(r.Verbs, ",") == "get,create,patch" {
			for _, g := range r.APIGroups {
				granted[g] = true
			}
		}
	}
	data, err := os.ReadFile("../../profiles/catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Operators []struct {
			Name   string   `json:"name"`
			Groups []string `json:"groups"`
		} `json:"operators"`
	}
	if err := yaml.Unmarshal(data, &cat); err != nil {
		t.Fatal(err)
	}
	if len(cat.Operators) == 0 {
		t.Fatal("no operators in profiles/catalog.yaml")
	}
	for _, op := range cat.Operators {
		for _, g := range op.Groups {
			if !granted[g] {
				t.Errorf("docs/cluster-checks.md: the ClusterRole does not grant get, create, patch on %s (%s)", g, op.Name)
			}
		}
	}
}

// The README's quick start shows the first command's output with the
// filled lines marked: every line it shows is printed, in order, and a line
// marked "# filled" is one the fill added (the render without an operator
// has it fewer times).
func TestReadmeQuickStart(t *testing.T) {
	doc, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmd := regexp.MustCompile("(?m)^go run ./cmd/cmp-defaults (render .*)$").FindSubmatch(doc)
	block := regexp.MustCompile("(?s)```yaml\n(apiVersion: external-secrets.io/v1\n.*?)```").FindSubmatch(doc)
	if cmd == nil || block == nil {
		t.Fatal("README: no quick start command or no output block after it")
	}
	render := func(args []string) string {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	args := strings.Fields(string(cmd[1]))
	for i := range args {
		if args[i] == "examples/helm" {
			args[i] = "../../examples/helm"
		}
	}
	filled := strings.Split(render(args), "\n")
	var plain []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--operator" {
			i++
			continue
		}
		plain = append(plain, args[i])
	}
	unfilled := render(plain)
	at, marked := 0, 0
	for _, line := range strings.Split(string(block[1]), "\n") {
		text, comment, _ := strings.Cut(line, "#")
		text = strings.TrimRight(text, " ")
		if strings.TrimSpace(text) == "" {
			continue
		}
		for at < len(filled) && filled[at] != text {
			at++
		}
		if at == len(filled) {
			t.Fatalf("README shows %q, which the quick start does not print there", text)
		}
		if strings.HasPrefix(strings.TrimSpace(comment), "filled") {
			marked++
			if strings.Count(strings.Join(filled, "\n"), text+"\n") <= strings.Count(unfilled, text+"\n") {
				t.Errorf("README marks %q as filled, but the render without an operator prints it as often", text)
			}
		}
	}
	if marked == 0 {
		t.Error("README marks no filled line")
	}
}

// examples/argocd/app.yaml is the Application of docs/migrating.md's worked
// example, so that the help's examples can run on it.
func TestExampleApplicationIsMigratings(t *testing.T) {
	doc, err := os.ReadFile("../../docs/migrating.md")
	if err != nil {
		t.Fatal(err)
	}
	app := regexp.MustCompile("(?s)```yaml\n(apiVersion: argoproj.io/v1alpha1\nkind: Application\n.*?)```").FindSubmatch(doc)
	shipped, err := os.ReadFile("../../examples/argocd/app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if app == nil || string(app[1]) != string(shipped) {
		t.Error("examples/argocd/app.yaml is not the Application of docs/migrating.md")
	}
}

// docs/discovery.md's ConfigMap is the shipped plugin.yaml plus discover:
// the same parameters (static and dynamic) and settings.
func TestDiscoveryConfigMapIsShippedPlusDiscover(t *testing.T) {
	doc, err := os.ReadFile("../../docs/discovery.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(apiVersion: v1\nkind: ConfigMap\n.*?)```").FindSubmatch(regexp.MustCompile("(?m)^   ").ReplaceAll(doc, nil))
	if block == nil {
		t.Fatal("no ConfigMap in docs/discovery.md")
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(block[1], &cm); err != nil {
		t.Fatal(err)
	}
	var doced, shipped map[string]any
	if err := yaml.Unmarshal([]byte(cm.Data["plugin.yaml"]), &doced); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &shipped); err != nil {
		t.Fatal(err)
	}
	spec, _ := doced["spec"].(map[string]any)
	if spec["discover"] == nil {
		t.Fatal("the ConfigMap's plugin.yaml has no discover")
	}
	delete(spec, "discover")
	a, _ := yaml.Marshal(doced)
	b, _ := yaml.Marshal(shipped)
	if string(a) != string(b) {
		t.Errorf("docs/discovery.md's plugin.yaml, without discover, is not the shipped one:\n%s\nshipped:\n%s", a, b)
	}
}
