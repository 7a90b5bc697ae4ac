package operators

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

const compiledSample = `apiVersion: cmp-defaults.io/v1alpha1
kind: OperatorProfile
operator: acme
version: 1.0.0
channel: experimental
description: every field the format has
provenance:
  repository: github.com/acme/acme
  tag: v1.0.0
  files: [{path: crds/a.yaml, blob: 0123abcd}]
learned: {cluster: https://127.0.0.1:6443, context: kind, serverVersion: v1.34.0, time: "2026-12-01T09:00:00Z", objects: 3, operators: [cert-manager@1.19.0]}
resources:
  - group: acme.io
    version: v1
    kind: Thing
    storage: true
    maps: [.spec.m]
    defaults:
      - {path: ".spec.m[].x", type: integer, value: -7}
      - {path: '.spec.m[].y', type: number, value: 0.25}
      - {path: '.metadata.annotations["acme.io/x"]', type: string, value: "é"}
      - {path: '.spec."odd-name"', type: boolean, value: false}
      - {path: .spec.o, type: object, nullable: true, value: {a: [1, 2.5, "s", true, {b: null}], c: {}}}
      - {path: .spec.list, type: array, value: []}
  - group: ""
    version: v1
    kind: ConfigMap
    mutations:
      - {path: '.data.x', value: {k: [1]}, when: '.metadata.name == "a"', reason: a webhook}
`

// TestCompiledRoundTrip: a profile and an index read back from their
// compiled forms equal what ParseProfile and ParseIndex give, and compile
// to the same bytes again.
func TestCompiledRoundTrip(t *testing.T) {
	want, err := ParseProfile("acme.yaml", []byte(compiledSample))
	if err != nil {
		t.Fatal(err)
	}
	b, err := CompileFile("acme.yaml", []byte(compiledSample))
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalCompiled("acme.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	if err := SameProfile(got, want); err != nil {
		t.Fatal(err)
	}
	if again, _ := MarshalCompiled(got); string(again) != string(b) {
		t.Fatal("compiling what was read back gives other bytes")
	}
	if !got.Resources[0].Defaults[0].Checked() {
		t.Fatal("a compiled path does not count as checked")
	}
	if segs, _ := got.Resources[0].Defaults[2].Segs(); len(segs) != 3 || segs[2].Name != "acme.io/x" {
		t.Fatalf("quoted path segments: %#v", segs)
	}

	index := "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorIndex\noperator: acme\nsource: somewhere\nreleases:\n" +
		"  - {version: 1.1.0, profile: 1.0.0}\n  - {version: v1.0.0, date: \"2026-01-01\", profile: v1.0.0}\n"
	wantIx, err := ParseIndex("index.yaml", []byte(index))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := CompileFile("index.yaml", []byte(index))
	if err != nil {
		t.Fatal(err)
	}
	gotIx, err := UnmarshalCompiledIndex("index.yaml", ib)
	if err != nil || !reflect.DeepEqual(gotIx, wantIx) {
		t.Fatalf("index reads back as %#v (%v), want %#v", gotIx, err, wantIx)
	}
}

// TestCompiledCorrupt: a truncated or padded compiled file, or one of the
// other kind, is an error naming the YAML file, never a panic.
func TestCompiledCorrupt(t *testing.T) {
	b, err := CompileFile("acme.yaml", []byte(compiledSample))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := UnmarshalCompiled("profiles/acme/v1.0.0.yaml", b[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(b))
		} else if !strings.HasPrefix(err.Error(), "profiles/acme/v1.0.0.yaml: ") {
			t.Fatalf("error does not name the file: %v", err)
		}
	}
	if _, err := UnmarshalCompiled("x", append(b, 0)); err == nil {
		t.Fatal("trailing byte: no error")
	}
	if _, err := UnmarshalCompiledIndex("x", b); err == nil {
		t.Fatal("a profile read as an index: no error")
	}
}

// TestCompiledStore: a store reads compiled files where there is no YAML,
// names the YAML file in what it reports, and prefers a YAML file over
// its compiled form.
func TestCompiledStore(t *testing.T) {
	b, err := CompileFile("acme.yaml", []byte(compiledSample))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(compiledSample, "value: -7", "value: 8", 1)
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want any
	}{
		{"compiled only", fstest.MapFS{"acme/v1.0.0.bin": {Data: b}}, int64(-7)},
		{"YAML beside it", fstest.MapFS{"acme/v1.0.0.bin": {Data: b}, "acme/v1.0.0.yaml": {Data: []byte(changed)}}, int64(8)},
	} {
		st, err := Load(LoadOptions{Embedded: tc.fsys})
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Resolve("acme", "1.0.0", true)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := res.Profile.Resources[0].Defaults[0].Value; got != tc.want {
			t.Errorf("%s: value %v, want %v", tc.name, got, tc.want)
		}
		if file, _ := st.ProfileFile("acme", "v1.0.0"); file != "profiles/acme/v1.0.0.yaml" || res.Profile.File != file {
			t.Errorf("%s: file %q / %q, want the YAML's name", tc.name, file, res.Profile.File)
		}
	}
}

// FuzzUnmarshalCompiled: reading any bytes as a compiled profile or index
// never panics, and what is accepted compiles to bytes that read back
// and compile to themselves.
func FuzzUnmarshalCompiled(f *testing.F) {
	b, err := CompileFile("acme.yaml", []byte(compiledSample))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(magicIndex + "\x00\x00\x00\x00\x01\x01a\x00\x01b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, err := UnmarshalCompiled("f", data); err == nil {
			once, err := MarshalCompiled(p)
			if err != nil {
				t.Fatal(err)
			}
			p2, err := UnmarshalCompiled("f", once)
			if err != nil {
				t.Fatalf("our own compiled form does not read: %v", err)
			}
			if twice, err := MarshalCompiled(p2); err != nil || string(twice) != string(once) {
				t.Fatalf("compiled form is not stable: %v", err)
			}
		}
		if ix, err := UnmarshalCompiledIndex("f", data); err == nil {
			once := MarshalCompiledIndex(ix)
			ix2, err := UnmarshalCompiledIndex("f", once)
			if err != nil || string(MarshalCompiledIndex(ix2)) != string(once) {
				t.Fatalf("compiled index is not stable: %v", err)
			}
		}
	})
}

// BenchmarkUnmarshalCompiledLargest reads the largest shipped profile's
// compiled form, against BenchmarkParseProfileLargest, its YAML.
func BenchmarkUnmarshalCompiledLargest(b *testing.B) {
	data, err := CompileFile("large.yaml", largestYAML(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UnmarshalCompiled("large.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseProfileLargest parses and validates the largest shipped
// profile's YAML.
func BenchmarkParseProfileLargest(b *testing.B) {
	data := largestYAML(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseProfile("large.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func largestYAML(b *testing.B) []byte {
	files, _ := filepath.Glob("../../profiles/*/v*.yaml")
	var largest []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > len(largest) {
			largest = data
		}
	}
	if largest == nil {
		b.Skip("no shipped profiles")
	}
	return largest
}
