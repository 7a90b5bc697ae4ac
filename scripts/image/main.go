// Command image builds the cmp-defaults sidecar image without a container
// engine, reproducibly: the same commit (and Go toolchain) gives the same
// digest.
//
//	go run ./scripts/image -o DIR
//
// writes DIR/oci, an OCI image layout whose index.json names one image index
// (linux/amd64 and linux/arm64, or the one -platform names), and
// DIR/image-linux-amd64.tar (the first platform's) for 'docker load'. Each
// step says on stderr what it does and how long it took. The image has one layer on an empty base: the static binary
// at /usr/local/bin/cmp-defaults, plugin.yaml where argocd-cmp-server reads it,
// the LICENSE, /etc/passwd and /etc/group naming uid/gid 999, and a sticky world-writable
// /tmp. Its entrypoint, argocd-cmp-server, is not in the image: Argo CD's
// repo-server copies it into the shared var-files volume at /var/run/argocd.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	Repository   = "ghcr.io/cmp-defaults/cmp-defaults"
	Source       = "https://github.com/cmp-defaults/cmp-defaults"
	Binary       = "/usr/local/bin/cmp-defaults"
	PluginConfig = "/home/argocd/cmp-server/config/plugin.yaml"
	Entrypoint   = "/var/run/argocd/argocd-cmp-server"
	User         = "999:999" // Argo CD's uid: the CMP server shares the plugins socket volume with repo-server
	// Licenses is the SPDX expression of the org.opencontainers.image.licenses
	// label: the repository's LICENSE, which the image carries at License.
	Licenses = "Apache-2.0"
	License  = "/usr/share/doc/cmp-defaults/LICENSE"
	// Path is the only environment variable: plugin.yaml runs "cmp-defaults".
	Path = "PATH=/usr/local/bin"
)

// Platforms are the image index's platforms; the docker tarball holds the first.
var Platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

// Options say what to build; zero values are read from the git checkout.
type Options struct {
	Root     string // repository root
	Out      string // output directory
	Version  string // the version the binary reports and the image's tag; default: git describe
	Revision string // the commit; default: git rev-parse HEAD
	Created  time.Time
	Log      io.Writer     // progress, one line per step; nil: none
	Platform []v1.Platform // the platforms to build; empty: all of Platforms
}

// Result names what was written.
type Result struct {
	Digest  v1.Hash // of the image index
	Tag     string
	Layout  string
	Tarball string
}

func main() {
	var o Options
	var epoch, platform string
	flag.StringVar(&platform, "platform", "", "build only this platform, e.g. linux/amd64 (what docker load needs); default: "+platformList())
	flag.StringVar(&o.Out, "o", "", "output directory (required); DIR/oci and DIR/image-linux-amd64.tar are written")
	flag.StringVar(&o.Version, "version", "", "version the binary reports and the image tag (default: git describe --tags --always --dirty)")
	flag.StringVar(&o.Revision, "revision", "", "source revision label (default: git rev-parse HEAD)")
	flag.StringVar(&epoch, "source-date-epoch", os.Getenv("SOURCE_DATE_EPOCH"), "timestamp of every file and of the image, in Unix seconds (default: $SOURCE_DATE_EPOCH, else the commit time)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./scripts/image -o DIR [flags]\n\nBuilds the cmp-defaults image (%s) without a container engine.\n\n", platformList())
		flag.PrintDefaults()
	}
	flag.Parse()
	if o.Out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if platform != "" {
		p, err := platformOf(platform)
		if err != nil {
			fmt.Fprintln(os.Stderr, "image:", err)
			os.Exit(2)
		}
		o.Platform = []v1.Platform{p}
	}
	if epoch != "" {
		sec, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "image: source date epoch %q is not Unix seconds\n", epoch)
			os.Exit(2)
		}
		o.Created = time.Unix(sec, 0).UTC()
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	o.Root, o.Log = root, os.Stderr
	res, err := Build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("%s@%s\n%s\n%s\n", res.Tag, res.Digest, res.Layout, res.Tarball)
}

func platformList() string {
	var names []string
	for _, p := range Platforms {
		names = append(names, p.OS+"/"+p.Architecture)
	}
	return strings.Join(names, ", ")
}

// platformOf is the platform of Platforms that s names (os/arch).
func platformOf(s string) (v1.Platform, error) {
	for _, p := range Platforms {
		if s == p.OS+"/"+p.Architecture {
			return p, nil
		}
	}
	return v1.Platform{}, fmt.Errorf("-platform %q: use one of %s", s, platformList())
}

// progress says on o.Log that a step is done and how long it took.
func (o *Options) progress(start time.Time, format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "image: %s (%s)\n", fmt.Sprintf(format, a...), time.Since(start).Round(100*time.Millisecond))
	}
}

// repoRoot is the directory of the main module's go.mod.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run it inside the cmp-defaults repository: go run ./scripts/image -o DIR")
	}
	return filepath.Dir(gomod), nil
}

// Build writes the image layout and the first platform's docker tarball
// under o.Out.
func Build(o Options) (*Result, error) {
	if err := o.fromGit(); err != nil {
		return nil, err
	}
	tag, err := name.NewTag(Repository + ":" + tagOf(o.Version))
	if err != nil {
		return nil, fmt.Errorf("image tag for version %q: %v", o.Version, err)
	}
	plugin, err := os.ReadFile(filepath.Join(o.Root, "plugin.yaml"))
	if err != nil {
		return nil, err
	}
	license, err := os.ReadFile(filepath.Join(o.Root, "LICENSE"))
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "cmp-defaults-image")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var bins []string
	for _, p := range o.platforms() {
		bin := filepath.Join(tmp, "cmp-defaults-"+p.Architecture)
		if err := o.goBuild(p, bin); err != nil {
			return nil, err
		}
		bins = append(bins, bin)
	}
	return o.write(tag, plugin, license, bins)
}

func (o *Options) platforms() []v1.Platform {
	if len(o.Platform) > 0 {
		return o.Platform
	}
	return Platforms
}

// write makes the images of the binaries bins (one per platform, in the
// order of o.platforms) and writes the layout and the tarball.
func (o *Options) write(tag name.Tag, plugin, license []byte, bins []string) (*Result, error) {
	var adds []mutate.IndexAddendum
	for i, p := range o.platforms() {
		start := time.Now()
		img, err := o.image(p, bins[i], plugin, license)
		if err == nil {
			_, err = img.Digest() // compresses the layer: the step's cost
		}
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %v", p.OS, p.Architecture, err)
		}
		o.progress(start, "%s/%s image assembled", p.OS, p.Architecture)
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	idx = mutate.Annotations(idx, o.labels()).(v1.ImageIndex)
	digest, err := idx.Digest()
	if err != nil {
		return nil, err
	}

	first := o.platforms()[0]
	res := &Result{Digest: digest, Tag: tag.String(), Layout: filepath.Join(o.Out, "oci"), Tarball: filepath.Join(o.Out, "image-"+first.OS+"-"+first.Architecture+".tar")}
	start := time.Now()
	if err := os.RemoveAll(res.Layout); err != nil {
		return nil, err
	}
	lp, err := layout.Write(res.Layout, empty.Index)
	if err != nil {
		return nil, err
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag.TagStr()})); err != nil {
		return nil, fmt.Errorf("writing %s: %v", res.Layout, err)
	}
	if err := ordinaryModes(res.Layout); err != nil {
		return nil, err
	}
	o.progress(start, "wrote the OCI layout %s", res.Layout)
	start = time.Now()
	if err := tarball.WriteToFile(res.Tarball, tag, adds[0].Add.(v1.Image)); err != nil {
		return nil, fmt.Errorf("writing %s: %v", res.Tarball, err)
	}
	o.progress(start, "wrote the docker tarball %s", res.Tarball)
	return res, nil
}

// ordinaryModes gives the layout the modes of files anyone may copy and
// push: go-containerregistry writes blobs 0600 (temporary files renamed)
// and index.json and oci-layout executable.
func ordinaryModes(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	})
}

// fromGit fills the version, revision and time the caller left out from the
// checkout, so that a commit always yields the same image.
func (o *Options) fromGit() error {
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = o.Root
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %v (build from a git checkout, or give -version, -revision and -source-date-epoch)", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	var err error
	if o.Version == "" {
		if o.Version, err = git("describe", "--tags", "--always", "--dirty"); err != nil {
			return err
		}
	}
	if o.Revision == "" {
		if o.Revision, err = git("rev-parse", "HEAD"); err != nil {
			return err
		}
	}
	if o.Created.IsZero() {
		ct, err := git("log", "-1", "--format=%ct", "HEAD")
		if err != nil {
			return err
		}
		sec, err := strconv.ParseInt(ct, 10, 64)
		if err != nil {
			return fmt.Errorf("commit time %q: %v", ct, err)
		}
		o.Created = time.Unix(sec, 0).UTC()
	}
	return nil
}

// tagOf makes a version a valid image tag ("v1.2.3", "abc1234-dirty").
func tagOf(v string) string {
	t := regexp.MustCompile(`[^A-Za-z0-9_.-]`).ReplaceAllString(v, "-")
	return strings.TrimLeft(t, ".-")
}

func (o *Options) labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.revision": o.Revision,
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.licenses": Licenses,
		"org.opencontainers.image.created":  o.Created.Format(time.RFC3339),
	}
}

// goBuild cross-compiles the static binary for p.
func (o *Options) goBuild(p v1.Platform, out string) error {
	start := time.Now()
	if o.Log != nil {
		fmt.Fprintf(o.Log, "image: building the %s/%s binary (go build)...\n", p.OS, p.Architecture)
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+o.Version, "-o", out, "./cmd/cmp-defaults")
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s/%s: %v", p.OS, p.Architecture, err)
	}
	o.progress(start, "built the %s/%s binary", p.OS, p.Architecture)
	return nil
}

// image is one platform's image: an empty base plus one layer.
func (o *Options) image(p v1.Platform, bin string, plugin, license []byte) (v1.Image, error) {
	exe, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	tarData, err := o.layerTar(exe, plugin, license)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(tarData)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestCompression), tarball.WithCompressedCaching)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created:   v1.Time{Time: o.Created},
		CreatedBy: "go run ./scripts/image",
		Comment:   "cmp-defaults " + o.Version,
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: o.Created}
	cf.Config = v1.Config{
		User:       User,
		Entrypoint: []string{Entrypoint},
		Env:        []string{Path},
		WorkingDir: "/home/argocd",
		Labels:     o.labels(),
	}
	return mutate.ConfigFile(img, cf)
}

// layerTar is the image's only layer, every entry stamped with o.Created.
func (o *Options) layerTar(exe, plugin, license []byte) ([]byte, error) {
	type entry struct {
		name     string
		mode     int64
		uid, gid int
		data     []byte
	}
	uid, gid := 999, 999
	entries := []entry{
		{"etc/", 0o755, 0, 0, nil},
		{"etc/group", 0o644, 0, 0, []byte("root:x:0:\nargocd:x:999:\n")},
		{"etc/passwd", 0o644, 0, 0, []byte("root:x:0:0:root:/root:/sbin/nologin\nargocd:x:999:999:argocd:/home/argocd:/sbin/nologin\n")},
		{"home/", 0o755, 0, 0, nil},
		{"home/argocd/", 0o755, uid, gid, nil},
		{"home/argocd/cmp-server/", 0o755, uid, gid, nil},
		{"home/argocd/cmp-server/config/", 0o755, 0, 0, nil},
		{"home/argocd/cmp-server/config/plugin.yaml", 0o644, 0, 0, plugin},
		{"tmp/", 0o1777, 0, 0, nil},
		{"usr/", 0o755, 0, 0, nil},
		{"usr/local/", 0o755, 0, 0, nil},
		{"usr/local/bin/", 0o755, 0, 0, nil},
		{"usr/local/bin/cmp-defaults", 0o755, 0, 0, exe},
		{"usr/share/", 0o755, 0, 0, nil},
		{"usr/share/doc/", 0o755, 0, 0, nil},
		{"usr/share/doc/cmp-defaults/", 0o755, 0, 0, nil},
		{"usr/share/doc/cmp-defaults/LICENSE", 0o644, 0, 0, license},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: o.Created, Format: tar.FormatPAX}
		if strings.HasSuffix(e.name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
