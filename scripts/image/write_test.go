package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// write, on stand-in binaries: -platform builds one platform, each step
// says on the log what it did, and the layout has ordinary modes (blobs
// 0644, index.json not executable) so that another user can push it.
func TestWriteOnePlatform(t *testing.T) {
	p, err := platformOf("linux/amd64")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := platformOf("linux/s390x"); err == nil || !strings.Contains(err.Error(), "linux/amd64, linux/arm64") {
		t.Errorf("an unknown platform: %v", err)
	}
	var log bytes.Buffer
	o := Options{Out: t.TempDir(), Version: "v0.0.0-test", Revision: strings.Repeat("0", 40), Created: time.Unix(1764547200, 0).UTC(), Log: &log, Platform: []v1.Platform{p}}
	bin := filepath.Join(t.TempDir(), "cmp-defaults")
	if err := os.WriteFile(bin, []byte("not really a binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag(Repository + ":v0.0.0-test")
	res, err := o.write(tag, []byte("plugin"), []byte("license"), []string{bin})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"image: linux/amd64 image assembled (", "image: wrote the OCI layout " + res.Layout + " (", "image: wrote the docker tarball " + res.Tarball + " ("} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log has no %q:\n%s", want, log.String())
		}
	}
	if filepath.Base(res.Tarball) != "image-linux-amd64.tar" {
		t.Errorf("tarball %s", res.Tarball)
	}
	idx, err := layout.ImageIndexFromPath(res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	im, _ := idx.IndexManifest()
	inner, err := idx.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := inner.IndexManifest(); len(m.Manifests) != 1 || m.Manifests[0].Platform.Architecture != "amd64" {
		t.Errorf("the index is not of linux/amd64 alone: %+v", m.Manifests)
	}
	err = filepath.WalkDir(res.Layout, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = 0o755 | fs.ModeDir
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %s, want %s", path, fi.Mode(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
