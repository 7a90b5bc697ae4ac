package deploy

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// No Docker engine is needed: these tests read the Dockerfile and build its
// binary with the same command.

const (
	repoRoot      = ".."
	pluginConfig  = "/home/argocd/cmp-server/config/plugin.yaml"
	imageBinary   = "/usr/local/bin/cmp-defaults" // on the distroless PATH; plugin.yaml runs "cmp-defaults"
	imageBudget   = 60_000_000                    // image size target (docker's MB)
	distrolessMax = 2_500_000                     // gcr.io/distroless/static uncompressed, generously
)

type instruction struct {
	Cmd  string // upper case
	Args string // raw, continuation lines joined
	Line int
}

type stage struct {
	From, Name string
	Ins        []instruction
}

type dockerfile struct {
	Args   map[string]string // global ARG defaults (before the first FROM)
	Stages []*stage
}

// parseDockerfile understands the subset of Dockerfile syntax a build needs:
// comments, line continuations, instructions, ARG defaults.
func parseDockerfile(t *testing.T, name string) *dockerfile {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	df := &dockerfile{Args: map[string]string{}}
	var cur *stage
	var buf strings.Builder
	start := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && buf.Len() == 0) {
			continue
		}
		if buf.Len() == 0 {
			start = n
		}
		if strings.HasSuffix(line, `\`) {
			buf.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		buf.WriteString(line)
		full := buf.String()
		buf.Reset()
		cmd, args, _ := strings.Cut(full, " ")
		in := instruction{Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args), Line: start}
		switch {
		case in.Cmd == "FROM":
			f := strings.Fields(in.Args)
			cur = &stage{From: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				cur.Name = f[2]
			}
			df.Stages = append(df.Stages, cur)
		case cur == nil && in.Cmd == "ARG":
			k, v, _ := strings.Cut(in.Args, "=")
			df.Args[k] = v
		case cur == nil:
			t.Fatalf("%s:%d: %s before the first FROM", name, start, in.Cmd)
		default:
			cur.Ins = append(cur.Ins, in)
		}
	}
	if buf.Len() > 0 {
		t.Fatalf("%s: ends inside a continued line", name)
	}
	return df
}

func (s *stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.Ins {
		if in.Cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// stageArgs are the ARG defaults visible in a stage.
func (s *stage) args() map[string]string {
	m := map[string]string{}
	for _, in := range s.all("ARG") {
		k, v, _ := strings.Cut(in.Args, "=")
		m[k] = v
	}
	return m
}

var varRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

func expand(s string, vars map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		return vars[varRef.FindStringSubmatch(m)[1]]
	})
}

// shellWords splits a simple shell command line: blanks, single and double
// quotes; no other shell syntax is allowed in the build command.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case strings.ContainsRune("&|;<>`()", r):
			t.Fatalf("build command uses shell syntax %q; keep it one plain command: %s", r, s)
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %s", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// copyArgs returns the flags, sources and destination of a COPY.
func copyArgs(in instruction) (flags, src []string, dst string) {
	f := strings.Fields(in.Args)
	for len(f) > 0 && strings.HasPrefix(f[0], "--") {
		flags, f = append(flags, f[0]), f[1:]
	}
	if len(f) < 2 {
		return flags, nil, ""
	}
	return flags, f[:len(f)-1], f[len(f)-1]
}

// goBuild is the image's `go build` command: environment assignments, the
// go command's arguments, and the output path inside the build stage.
type goBuild struct {
	Env  []string
	Args []string // after "go"
	Out  string
}

func buildCommand(t *testing.T, df *dockerfile) (*stage, goBuild) {
	t.Helper()
	for _, s := range df.Stages[:len(df.Stages)-1] {
		vars := s.args()
		for k, v := range df.Args {
			if _, ok := vars[k]; !ok {
				vars[k] = v
			}
		}
		for _, in := range s.all("RUN") {
			words := shellWords(t, expand(in.Args, vars))
			i := slices.Index(words, "go")
			if i < 0 || i+1 >= len(words) || words[i+1] != "build" {
				continue
			}
			b := goBuild{Env: words[:i], Args: words[i+1:]}
			for j, a := range b.Args {
				if a == "-o" && j+1 < len(b.Args) {
					b.Out = b.Args[j+1]
				}
			}
			return s, b
		}
	}
	t.Fatal("Dockerfile: no build stage runs go build")
	return nil, goBuild{}
}

func TestDockerfile(t *testing.T) {
	df := parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))
	if len(df.Stages) < 2 {
		t.Fatalf("want a multi-stage build, got %d stage(s)", len(df.Stages))
	}

	// Build stage: a static, reproducible, stripped binary with Go from go.mod.
	bs, b := buildCommand(t, df)
	if bs.Name == "" {
		t.Errorf("build stage needs a name (FROM ... AS build)")
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("go build without CGO_ENABLED=0: %v", b.Env)
	}
	if !slices.Contains(b.Args, "-trimpath") {
		t.Errorf("go build without -trimpath: %q", b.Args)
	}
	if i := slices.Index(b.Args, "-ldflags"); i < 0 || i+1 >= len(b.Args) ||
		!slices.Contains(strings.Fields(b.Args[i+1]), "-s") || !slices.Contains(strings.Fields(b.Args[i+1]), "-w") {
		t.Errorf(`go build without -ldflags "-s -w": %q`, b.Args)
	}
	if b.Args[len(b.Args)-1] != "./cmd/cmp-defaults" {
		t.Errorf("go build must build ./cmd/cmp-defaults: %q", b.Args)
	}
	if b.Out == "" {
		t.Fatalf("go build without -o")
	}
	gomod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^go (\S+)`).FindSubmatch(gomod); m == nil {
		t.Errorf("go.mod: no go directive")
	} else if from := expand(bs.From, df.Args); from != "golang:"+string(m[1]) && !strings.HasPrefix(from, "golang:"+string(m[1])+"-") {
		t.Errorf("build stage FROM %s, want golang:%s (go.mod)", from, m[1])
	}

	// Final stage: minimal base, the binary on PATH, plugin.yaml, uid 999, argocd-cmp-server.
	fs := df.Stages[len(df.Stages)-1]
	if !strings.HasPrefix(fs.From, "gcr.io/distroless/static") && fs.From != "scratch" {
		t.Errorf("final stage FROM %s: want gcr.io/distroless/static (or scratch)", fs.From)
	}
	if fs.From == "scratch" {
		t.Errorf("scratch has no /tmp and no /etc/passwd; use distroless/static or create them")
	}
	var haveBinary, havePlugin bool
	for _, in := range fs.all("COPY") {
		flags, src, dst := copyArgs(in)
		switch dst {
		case imageBinary:
			haveBinary = slices.Contains(flags, "--from="+bs.Name) && slices.Equal(src, []string{b.Out})
			if !haveBinary {
				t.Errorf("line %d: %s must come from the build stage's %s", in.Line, imageBinary, b.Out)
			}
		case pluginConfig:
			havePlugin = slices.Equal(src, []string{"plugin.yaml"}) && len(flags) == 0
			if !havePlugin {
				t.Errorf("line %d: %s must be the repository's plugin.yaml", in.Line, pluginConfig)
			}
		}
	}
	if !haveBinary {
		t.Errorf("final stage does not install the binary at %s", imageBinary)
	}
	if !havePlugin {
		t.Errorf("final stage does not install plugin.yaml at %s", pluginConfig)
	}
	users := fs.all("USER")
	if len(users) == 0 || (users[len(users)-1].Args != "999" && users[len(users)-1].Args != "999:999") {
		t.Errorf("final stage must run as USER 999 (Argo CD's uid): %v", users)
	}
	eps := fs.all("ENTRYPOINT")
	var ep []string
	if len(eps) > 0 {
		if err := json.Unmarshal([]byte(eps[len(eps)-1].Args), &ep); err != nil {
			t.Errorf("ENTRYPOINT must use the exec (JSON) form: %v", err)
		}
	}
	if !slices.Equal(ep, []string{"/var/run/argocd/argocd-cmp-server"}) {
		t.Errorf("ENTRYPOINT %q, want [/var/run/argocd/argocd-cmp-server]", ep)
	}
	if len(fs.all("CMD")) > 0 {
		t.Errorf("final stage has CMD: argocd-cmp-server takes no arguments from the image")
	}
	for _, s := range df.Stages {
		if len(s.all("ADD")) > 0 {
			t.Errorf("stage %s uses ADD; use COPY", s.From)
		}
	}
}

// The build context must keep everything the build stage needs.
func TestDockerignore(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	needed := []string{"go.mod", "go.sum", "plugin.yaml", "cmd/cmp-defaults/main.go", "internal", "profiles/embed.go"}
	for _, line := range strings.Split(string(data), "\n") {
		p := strings.Trim(strings.TrimSpace(line), "/")
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		for _, n := range needed {
			for d := n; d != "."; d = path.Dir(d) {
				if ok, _ := path.Match(p, d); ok {
					t.Errorf(".dockerignore %q excludes %s, which the build needs", line, n)
				}
			}
		}
	}
}

// TestImageBinary builds the binary with the Dockerfile's own go build
// command, checks that it is static and stripped, fits the image budget,
// and runs without anything from the build environment.
func TestImageBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary; skipped with -short")
	}
	df := parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))
	_, b := buildCommand(t, df)
	out := filepath.Join(t.TempDir(), "cmp-defaults")
	args := slices.Clone(b.Args)
	args[slices.Index(args, "-o")+1] = out

	cmd := exec.Command("go", args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), b.Env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}

	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := os.Stat(filepath.Join(repoRoot, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	image := fi.Size() + plugin.Size() + distrolessMax
	t.Logf("stripped static binary: %d bytes (%.1f MB); image estimate with distroless/static: %.1f MB (target < %d MB)",
		fi.Size(), float64(fi.Size())/1e6, float64(image)/1e6, imageBudget/1_000_000)
	if image >= imageBudget {
		t.Errorf("image estimate %.1f MB exceeds the %d MB target", float64(image)/1e6, imageBudget/1_000_000)
	}

	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("binary has a dynamic loader (PT_INTERP): not static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("binary links shared libraries %v", libs)
	}
	for _, s := range f.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			t.Errorf("binary is not stripped: section %s", s.Name)
		}
	}

	// Runs in an empty environment, like in the image: profiles are embedded.
	run := func(args ...string) string {
		cmd := exec.Command(out, args...)
		cmd.Env = []string{}
		cmd.Dir = t.TempDir()
		o, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cmp-defaults %s: %v\n%s", strings.Join(args, " "), err, o)
		}
		return string(o)
	}
	if v := run("version"); !strings.Contains(v, "external-secrets") || !strings.Contains(v, "cert-manager") {
		t.Errorf("version does not list the embedded profiles:\n%s", v)
	}
	if p := run("parameters"); !strings.Contains(p, `"external-secrets"`) {
		t.Errorf("parameters does not announce the embedded operators:\n%s", p)
	}
}
