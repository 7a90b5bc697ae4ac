package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The repository is licensed under Apache 2.0, the image's label says so,
// and the image carries the licence text.
func TestLicense(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "Apache License\n                           Version 2.0, January 2004") ||
		!strings.Contains(string(text), "END OF TERMS AND CONDITIONS") {
		t.Fatal("LICENSE is not the Apache License 2.0 text")
	}
	o := Options{Version: "v0.0.0-test", Created: time.Unix(0, 0).UTC()}
	if got := o.labels()["org.opencontainers.image.licenses"]; got != "Apache-2.0" {
		t.Errorf("org.opencontainers.image.licenses = %q, want Apache-2.0", got)
	}
	data, err := o.layerTar([]byte("exe"), []byte("plugin"), text)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("the layer has no %s", License)
		}
		if err != nil {
			t.Fatal(err)
		}
		if "/"+h.Name == License {
			if b, _ := io.ReadAll(tr); !bytes.Equal(b, text) {
				t.Errorf("%s is not the repository's LICENSE", License)
			}
			return
		}
	}
}
