// Command benchcmd times the cmp-defaults binary as users run it against
// the tools they would otherwise use, interleaving the runs so that a noisy
// machine slows both sides alike, and reports medians, ratios and peak RSS.
// scripts/bench.sh builds the binaries and calls it.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/benchdata"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/supervisor"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

type run struct {
	wall time.Duration
	cpu  time.Duration // user + system
	rss  int64         // KiB
}

type cmdSpec struct {
	name string
	dir  string
	env  []string
	args []string
}

func main() {
	cmp := flag.String("cmp", "bin/cmp-defaults", "cmp-defaults binary")
	helm := flag.String("helm", "bin/helm", "Helm 4 binary")
	kust := flag.String("kustomize", "bin/kustomize", "kustomize binary")
	runs := flag.Int("runs", 15, "runs per command (interleaved)")
	work := flag.String("work", "", "fixture directory (default: a temp dir)")
	sizes := flag.String("rss", "1000,10000,100000", "object counts for the peak RSS series (empty: none)")
	only := flag.String("only", "", "run only the scenarios whose name matches this regular expression")
	flag.Parse()
	match := regexp.MustCompile(*only)
	for _, p := range []*string{cmp, helm, kust} {
		abs, err := filepath.Abs(*p)
		must(err)
		*p = abs
	}
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "cmp-bench")
		must(err)
		defer os.RemoveAll(d)
		dir = d
	}
	must(benchdata.Chart(filepath.Join(dir, "chart"), 50))
	must(benchdata.Kustomize(filepath.Join(dir, "kustomize"), 200))
	must(benchdata.OneFile(filepath.Join(dir, "onefile")))
	largest, err := largestProfile(filepath.Join(dir, "largest"))
	must(err)
	home := filepath.Join(dir, "home")
	must(os.MkdirAll(home, 0o755))
	base := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "KUBECONFIG=" + filepath.Join(home, "none")}
	genEnv := append(append([]string{}, base...), "ARGOCD_APP_NAME=bench", "ARGOCD_APP_NAMESPACE=team",
		"ARGOCD_APP_SOURCE_PATH=onefile", "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0", "KUBE_VERSION=1.34.0")

	fmt.Printf("# %d interleaved runs each; medians; machine: %s\n\n", *runs, machine())
	largeEnv := append(append([]string{}, base...), "ARGOCD_APP_NAME=bench", "ARGOCD_APP_NAMESPACE=team",
		"ARGOCD_APP_SOURCE_PATH=largest", "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS="+largest, "KUBE_VERSION=1.34.0")
	fmt.Println("| scenario | cmp-defaults | baseline | ratio | CPU ratio | target |")
	fmt.Println("|---|---|---|---|---|---|")
	pairs := []struct {
		scenario, target string
		ours, theirs     cmdSpec
		max              float64
	}{
		{"generate on a one-file source vs `helm version`", "≤ 2.0× and < 50 ms",
			cmdSpec{"generate", filepath.Join(dir, "onefile"), genEnv, []string{*cmp, "generate"}},
			cmdSpec{"helm version", dir, base, []string{*helm, "version"}}, 2.0},
		{"render of a 50-template chart vs `helm template`", "≤ 1.0×",
			cmdSpec{"render", dir, base, []string{*cmp, "render", "chart", "--release-name", "bench", "--namespace", "team", "--kube-version", "1.34.0"}},
			cmdSpec{"helm template", dir, base, []string{*helm, "template", "bench", "chart", "--namespace", "team", "--kube-version", "1.34.0", "--include-crds"}}, 1.0},
		{"render of a 200-resource overlay vs `kustomize build`", "≤ 1.0× (no target set)",
			cmdSpec{"render", dir, base, []string{*cmp, "render", "--repo-root", "kustomize", "kustomize/overlay"}},
			cmdSpec{"kustomize build", dir, base, []string{*kust, "build", "kustomize/overlay"}}, 0},
		{"generate with the largest shipped profile (" + largest + ") vs with external-secrets@2.5.0", "≤ 1.1×",
			cmdSpec{"generate largest", filepath.Join(dir, "largest"), largeEnv, []string{*cmp, "generate"}},
			cmdSpec{"generate", filepath.Join(dir, "onefile"), genEnv, []string{*cmp, "generate"}}, 1.1},
	}
	var generate []run
	for _, p := range pairs {
		if !match.MatchString(p.scenario) {
			continue
		}
		var a, b []run
		for i := 0; i < *runs; i++ {
			a = append(a, timeIt(p.ours))
			b = append(b, timeIt(p.theirs))
		}
		if p.ours.name == "generate" {
			generate = a
		}
		ma, mb := median(a), median(b)
		ca, cb := medianCPU(a), medianCPU(b)
		fmt.Printf("| %s | %s | %s | %.2f× | %.2f× | %s |\n", p.scenario, ms(ma.wall), ms(mb.wall), float64(ma.wall)/float64(mb.wall), float64(ca)/float64(cb), p.target)
	}
	if len(generate) > 0 {
		g := median(generate)
		fmt.Printf("\n`generate` one-file: median %s wall, peak RSS %d MiB.\n", ms(g.wall), g.rss>>10)
	}

	if match.MatchString("sizing") {
		sizing(dir, base, *cmp)
	}

	fmt.Println("\n| objects | input | fill wall | peak RSS | RSS / input |")
	fmt.Println("|---|---|---|---|---|")
	for _, s := range strings.Split(*sizes, ",") {
		if s == "" {
			continue
		}
		var n int
		fmt.Sscan(s, &n)
		f := filepath.Join(dir, fmt.Sprintf("stream-%d.yaml", n))
		data := benchdata.Stream(n)
		must(os.WriteFile(f, data, 0o644))
		spec := cmdSpec{"fill", dir, append(base, "CMP_DEFAULTS_MAX_INPUT_BYTES=1000000000", "CMP_DEFAULTS_MAX_DOCUMENTS=10000000"),
			[]string{*cmp, "fill", "--operator", "external-secrets@2.5.0,cert-manager@1.19.0", f}}
		var rs []run
		for i := 0; i < 3; i++ {
			rs = append(rs, timeIt(spec))
		}
		m := median(rs)
		fmt.Printf("| %d | %.1f MiB | %s | %d MiB | %.2f× |\n", n, float64(len(data))/(1<<20), ms(m.wall), m.rss>>10, float64(m.rss<<10)/float64(len(data)))
	}
}

// sizing prints what one generate holds, supervisor and worker together,
// for the sidecar's memory sizing (docs/install.md): the bundled examples
// and a plain directory of 10,000 objects.
func sizing(dir string, base []string, cmp string) {
	wd, err := os.Getwd()
	must(err)
	big := filepath.Join(dir, "stream-10000-dir")
	must(os.MkdirAll(big, 0o755))
	must(os.WriteFile(filepath.Join(big, "objects.yaml"), benchdata.Stream(10000), 0o644))
	fmt.Println("\n| generate on | wall | peak RSS, supervisor + worker |")
	fmt.Println("|---|---|---|")
	for _, s := range []struct{ root, path, operators string }{
		{wd, "examples/plain", "external-secrets@2.5.0"},
		{wd, "examples/helm", "external-secrets@2.5.0"},
		{wd, "examples/kustomize/overlays/prod", "external-secrets@2.5.0"},
		{dir, "stream-10000-dir", "external-secrets@2.5.0,cert-manager@1.19.0"},
	} {
		env := append(append([]string{}, base...), "ARGOCD_APP_NAME=bench", "ARGOCD_APP_NAMESPACE=team",
			"ARGOCD_APP_SOURCE_PATH="+s.path, "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS="+s.operators, "KUBE_VERSION=1.34.0")
		spec := cmdSpec{"generate", filepath.Join(s.root, s.path), env, []string{cmp, "generate"}}
		var rs []run
		for range 5 {
			rs = append(rs, timeIt(spec))
		}
		peak := slices.MaxFunc(rs, func(a, b run) int { return int(a.rss - b.rss) })
		fmt.Printf("| `%s` | %s | %d MiB |\n", s.path, ms(median(rs).wall), peak.rss>>10)
	}
}

func timeIt(c cmdSpec) run {
	cmd := exec.Command(c.args[0], c.args[1:]...)
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdout = nil
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	peak, err := supervisor.RunMeasured(cmd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", strings.Join(c.args, " "), err, stderr.String())
		os.Exit(1)
	}
	// Peak memory of the process tree (supervisor and worker together);
	// the kernel's peak RSS is one process's.
	r := run{wall: time.Since(start), rss: peak >> 10}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r
}

func medianCPU(rs []run) time.Duration {
	s := make([]time.Duration, len(rs))
	for i, r := range rs {
		s[i] = r.cpu
	}
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// largestProfile finds the largest shipped profile (by its compiled size)
// and writes one object of its first kind into dir, for generate to fill.
// It returns the operator release that selects it.
func largestProfile(dir string) (string, error) {
	var file string
	var size int64
	err := fs.WalkDir(profiles.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) == "index"+operators.CompiledExt {
			return err
		}
		info, err := d.Info()
		if err == nil && info.Size() > size {
			file, size = p, info.Size()
		}
		return err
	})
	if err != nil {
		return "", err
	}
	op, version := path.Dir(file), strings.TrimSuffix(path.Base(file), operators.CompiledExt)
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		return "", err
	}
	res, err := st.Resolve(op, version, true)
	if err != nil {
		return "", err
	}
	r := res.Profile.Resources[0]
	obj := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: bench\n  namespace: team\nspec: {}\n", r.APIVersion(), r.Kind)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return op + "@" + strings.TrimPrefix(version, "v"), os.WriteFile(filepath.Join(dir, "object.yaml"), []byte(obj), 0o644)
}

func median(rs []run) run {
	s := append([]run(nil), rs...)
	sort.Slice(s, func(i, j int) bool { return s[i].wall < s[j].wall })
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func machine() string {
	out, _ := exec.Command("sh", "-c", "nproc; grep -m1 'model name' /proc/cpuinfo | cut -d: -f2; uptime").Output()
	return strings.Join(strings.Fields(strings.ReplaceAll(string(out), "\n", " ; ")), " ")
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcmd:", err)
		os.Exit(1)
	}
}
