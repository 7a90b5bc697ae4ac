package operators

import (
	"testing"
	"testing/fstest"
)

// BenchmarkLoadCompiledLargest is the store's path to a shipped profile:
// the file read from an fs.FS, then its compiled form read.
func BenchmarkLoadCompiledLargest(b *testing.B) {
	data, err := CompileFile("large.yaml", largestYAML(b))
	if err != nil {
		b.Fatal(err)
	}
	fsys := fstest.MapFS{"op/v1.0.0.bin": &fstest.MapFile{Data: data}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := &profileRef{version: "v1.0.0", file: "op/v1.0.0.bin", source: Shipped, fsys: fsys}
		if _, err := r.load(); err != nil {
			b.Fatal(err)
		}
	}
}
