package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	root = "../.."
	// sizeBudget bounds what a node pulls per platform: the compressed layer
	// plus config and manifest.
	sizeBudget = 25_000_000
)

// wantFiles is the image's whole file tree: path, mode, owner.
var wantFiles = []string{
	"etc/ drwxr-xr-x 0:0",
	"etc/group -rw-r--r-- 0:0",
	"etc/passwd -rw-r--r-- 0:0",
	"home/ drwxr-xr-x 0:0",
	"home/argocd/ drwxr-xr-x 999:999",
	"home/argocd/cmp-server/ drwxr-xr-x 999:999",
	"home/argocd/cmp-server/config/ drwxr-xr-x 0:0",
	"home/argocd/cmp-server/config/plugin.yaml -rw-r--r-- 0:0",
	"tmp/ dtrwxrwxrwx 0:0",
	"usr/ drwxr-xr-x 0:0",
	"usr/local/ drwxr-xr-x 0:0",
	"usr/local/bin/ drwxr-xr-x 0:0",
	"usr/local/bin/cmp-defaults -rwxr-xr-x 0:0",
	"usr/share/ drwxr-xr-x 0:0",
	"usr/share/doc/ drwxr-xr-x 0:0",
	"usr/share/doc/cmp-defaults/ drwxr-xr-x 0:0",
	"usr/share/doc/cmp-defaults/LICENSE -rw-r--r-- 0:0",
}

// allPlatforms builds the image for every platform, as the release
// workflow does; by default the test builds linux/amd64 alone, since
// cross-compiling every dependency for arm64 is minutes of a cold CI run
// (which compiles the platform-specific packages for arm64 instead).
var allPlatforms = flag.Bool("all-platforms", false, "build the image for every platform of the index, not linux/amd64 alone")

// options reads version, revision and time from git like the command does;
// without a git checkout (an unpacked source archive) it fixes them.
func options(t *testing.T, out string) Options {
	o := Options{Root: root, Out: out}
	if !*allPlatforms {
		o.Platform = Platforms[:1]
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Logf("no git checkout (%v): fixed version, revision and time", err)
		o.Version, o.Revision, o.Created = "v0.0.0-test", "0000000000000000000000000000000000000000", time.Unix(1764547200, 0).UTC()
	}
	return o
}

func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the image twice; skipped with -short")
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	var results []*Result
	for _, d := range dirs {
		start := time.Now()
		res, err := Build(options(t, d))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("built %s@%s in %s", res.Tag, res.Digest, time.Since(start).Round(time.Second))
		results = append(results, res)
	}

	// Reproducible: the same digest, and byte-identical outputs.
	if results[0].Digest != results[1].Digest {
		t.Errorf("two builds of one commit differ: %s and %s", results[0].Digest, results[1].Digest)
	}
	if a, b := treeSums(t, dirs[0]), treeSums(t, dirs[1]); !slices.Equal(a, b) {
		t.Errorf("two builds wrote different files:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}

	o := options(t, dirs[0])
	if err := o.fromGit(); err != nil {
		t.Fatal(err)
	}
	res := results[0]
	idx := layoutIndex(t, res)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if mt, _ := idx.MediaType(); mt != types.OCIImageIndex {
		t.Errorf("index media type %s", mt)
	}
	if len(im.Manifests) != len(o.platforms()) {
		t.Fatalf("index has %d manifests, want %d", len(im.Manifests), len(o.platforms()))
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.revision": o.Revision,
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.licenses": Licenses,
		"org.opencontainers.image.created":  o.Created.Format(time.RFC3339),
	}
	plugin, err := os.ReadFile(filepath.Join(root, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range o.platforms() {
		d := im.Manifests[i]
		if d.Platform == nil || d.Platform.OS != p.OS || d.Platform.Architecture != p.Architecture {
			t.Errorf("manifest %d is for %v, want %s/%s", i, d.Platform, p.OS, p.Architecture)
			continue
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(p.OS+"-"+p.Architecture, func(t *testing.T) {
			checkConfig(t, img, p, o.Created, wantLabels)
			files := checkLayer(t, img, p, plugin)
			if p.Architecture == "amd64" {
				checkTarball(t, res, img)
				if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
					checkRuns(t, files[Binary[1:]])
				}
			}
		})
	}
}

// treeSums lists every file under dir with its SHA-256.
func treeSums(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+strconv.Itoa(len(data))+" "+sha(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// layoutIndex is the one image index the layout's index.json names, tagged
// with the version.
func layoutIndex(t *testing.T, res *Result) v1.ImageIndex {
	t.Helper()
	lp, err := layout.FromPath(res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Manifests) != 1 || !tm.Manifests[0].MediaType.IsIndex() {
		t.Fatalf("index.json: want one image index, got %+v", tm.Manifests)
	}
	d := tm.Manifests[0]
	if d.Digest != res.Digest {
		t.Errorf("index.json names %s, the build reported %s", d.Digest, res.Digest)
	}
	if _, tag, _ := strings.Cut(res.Tag, ":"); d.Annotations["org.opencontainers.image.ref.name"] != tag {
		t.Errorf("index.json ref.name %q, want %q", d.Annotations["org.opencontainers.image.ref.name"], tag)
	}
	idx, err := top.ImageIndex(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func checkConfig(t *testing.T, img v1.Image, p v1.Platform, created time.Time, labels map[string]string) {
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if c.User != "999:999" {
		t.Errorf("user %q, want 999:999 (Argo CD's uid)", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/var/run/argocd/argocd-cmp-server"}) || len(c.Cmd) > 0 {
		t.Errorf("entrypoint %q cmd %q, want [/var/run/argocd/argocd-cmp-server] and no cmd", c.Entrypoint, c.Cmd)
	}
	// Only PATH: nothing else, so no secret or build-machine value leaks in.
	if !slices.Equal(c.Env, []string{"PATH=/usr/local/bin"}) {
		t.Errorf("env %q, want only PATH=/usr/local/bin", c.Env)
	}
	for k, v := range labels {
		if c.Labels[k] != v || v == "" {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
	if cf.OS != p.OS || cf.Architecture != p.Architecture {
		t.Errorf("config platform %s/%s", cf.OS, cf.Architecture)
	}
	if !cf.Created.Time.Equal(created) {
		t.Errorf("created %s, want the commit time %s", cf.Created.Time, created)
	}
	if len(c.ExposedPorts) > 0 || len(c.Volumes) > 0 || c.Healthcheck != nil {
		t.Errorf("unexpected ports, volumes or healthcheck: %+v", c)
	}
}

// checkLayer checks the single layer's file tree and returns its files.
func checkLayer(t *testing.T, img v1.Image, p v1.Platform, plugin []byte) map[string][]byte {
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1 (an empty base plus ours)", len(layers))
	}
	size, err := img.Size() // the manifest
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() (int64, error){layers[0].Size, func() (int64, error) { m, err := img.Manifest(); return m.Config.Size, err }} {
		n, err := f()
		if err != nil {
			t.Fatal(err)
		}
		size += n
	}
	t.Logf("%s/%s: %.1f MB compressed", p.OS, p.Architecture, float64(size)/1e6)
	if size >= sizeBudget {
		t.Errorf("image is %d bytes compressed, more than the %d budget", size, sizeBudget)
	}

	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var got []string
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, h.Name+" "+h.FileInfo().Mode().String()+" "+strconv.Itoa(h.Uid)+":"+strconv.Itoa(h.Gid))
		if h.Typeflag == tar.TypeReg {
			if files[h.Name], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(got, wantFiles) {
		t.Errorf("file tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantFiles, "\n"))
	}
	if !bytes.Equal(files[PluginConfig[1:]], plugin) {
		t.Errorf("%s is not the repository's plugin.yaml", PluginConfig)
	}
	if !strings.Contains(string(files["etc/passwd"]), "argocd:x:999:999:") {
		t.Errorf("/etc/passwd has no argocd user 999:\n%s", files["etc/passwd"])
	}

	f, err := elf.NewFile(bytes.NewReader(files[Binary[1:]]))
	if err != nil {
		t.Fatalf("%s: %v", Binary, err)
	}
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.Architecture]
	if f.Machine != want {
		t.Errorf("%s is for %s, want %s", Binary, f.Machine, want)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Errorf("%s has a dynamic loader: not static", Binary)
		}
	}
	for _, s := range f.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") {
			t.Errorf("%s is not stripped: section %s", Binary, s.Name)
		}
	}
	return files
}

// checkTarball: the docker tarball holds the amd64 image of the index.
func checkTarball(t *testing.T, res *Result, want v1.Image) {
	img, err := tarball.ImageFromPath(res.Tarball, nil)
	if err != nil {
		t.Fatalf("%s: %v", res.Tarball, err)
	}
	for _, f := range []func(v1.Image) (v1.Hash, error){v1.Image.ConfigName, func(i v1.Image) (v1.Hash, error) {
		ls, err := i.Layers()
		if err != nil || len(ls) != 1 {
			return v1.Hash{}, err
		}
		return ls[0].Digest()
	}} {
		a, errA := f(img)
		b, errB := f(want)
		if errA != nil || errB != nil || a != b {
			t.Errorf("docker tarball differs from the index's amd64 image: %s vs %s (%v, %v)", a, b, errA, errB)
		}
	}
	m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(res.Tarball) })
	if err != nil || len(m) != 1 || !slices.Equal(m[0].RepoTags, []string{res.Tag}) {
		t.Errorf("docker tarball manifest.json: %+v, %v; want the tag %s", m, err, res.Tag)
	}
}

// checkRuns runs the binary taken from the layer, with an empty environment
// as in the image, and compares it with 'go run' on the examples.
func checkRuns(t *testing.T, exe []byte) {
	bin := filepath.Join(t.TempDir(), "cmp-defaults")
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Abs(filepath.Join(root, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"plain", "helm", "kustomize/overlays/prod"} {
		args := []string{"render", "--operator", "external-secrets@2.5.0", filepath.Join(examples, src)}
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{}
		cmd.Dir = t.TempDir()
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("image binary %s: %v\n%s", strings.Join(args, " "), err, stderr(err))
		}
		gr := exec.Command("go", append([]string{"run", "./cmd/cmp-defaults"}, args...)...)
		gr.Dir = root
		want, err := gr.Output()
		if err != nil {
			t.Fatalf("go run ./cmd/cmp-defaults %s: %v\n%s", strings.Join(args, " "), err, stderr(err))
		}
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("examples/%s: the image's binary prints\n%s\ngo run prints\n%s", src, got, want)
		}
	}
}

func stderr(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
