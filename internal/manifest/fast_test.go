package manifest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// libraryDecode is the reference: sigs.k8s.io/yaml then utiljson, as
// kubectl reads manifests.
func libraryDecode(doc []byte) (any, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	var v any
	err = utiljson.Unmarshal(j, &v)
	return v, err
}

// yamlToValue decodes one document as the stream decoder does: yaml.v2's
// generic decode, then jsonValue.
func yamlToValue(doc []byte, maxDepth int) (any, error) {
	var v any
	if err := yamlv2.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	return jsonValue(v, 0, maxDepth)
}

var fastSeeds = []string{
	"apiVersion: v1\nkind: A\nx: 1e3\ny: 0x1F\nz: yes\nw: ~\nv: 1.0\nu: -0.0\nt: 2001-12-14\ns: !!binary aGVsbG8=\n",
	"a: 12345678901234567890\nb: -9223372036854775808\nc: 9223372036854775807\nd: 1e21\ne: 123456789012345678901.0\nf: .inf\n",
	"1: a\ntrue: b\n2.5: c\n0.1: d\n? [x]\n: e\n",
	"a: &a {x: 1}\nb: {<<: *a, y: 2}\nc: [*a, *a]\n",
	"s: \"\\xff\\xfe\"\nt: 'it''s'\nu: \"\\u00e9\"\nv: |\n  multi\n  line\n",
	"a10: 1\na9: 2\nA: 3\n_: 4\n\"\": 5\n",
}

// FuzzFastDecodeEqualsLibrary proves the direct decode equal to the
// sigs.k8s.io/yaml + utiljson path, error or value.
func FuzzFastDecodeEqualsLibrary(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		want, werr := libraryDecode(doc)
		got, gerr := yamlToValue(doc, 0)
		var kc *keyCollision
		if errors.As(gerr, &kc) {
			return // the library keeps one of the colliding keys at random
		}
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("errors differ: library %v, fast %v", werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("values differ:\nlibrary %#v\nfast    %#v", want, got)
		}
	})
}

// FuzzFastEncodeEqualsLibrary proves the direct encode byte-equal to
// sigs.k8s.io/yaml.Marshal for every value the decoder produces.
func FuzzFastEncodeEqualsLibrary(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := libraryDecode(doc)
		if err != nil {
			return
		}
		want, werr := yaml.Marshal(v)
		got, gerr := marshalYAML(v)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("encodings differ (%v, %v):\nlibrary %q\nfast    %q", werr, gerr, want, got)
		}
		// A stream through one Encoder equals the documents joined by "---".
		m, ok := v.(map[string]any)
		if werr != nil || !ok {
			return
		}
		var stream bytes.Buffer
		if err := Encode(&stream, []Object{{Data: m}, {Data: map[string]any{"k": "v"}}, {Data: m}}, "yaml"); err != nil {
			t.Fatal(err)
		}
		joined := string(want) + "---\nk: v\n---\n" + string(want)
		if stream.String() != joined {
			t.Fatalf("stream differs:\n%q\n%q", stream.String(), joined)
		}
	})
}

func benchStream(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteString("---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: s, namespace: team, labels: {app: a}}\nspec:\n  refreshInterval: 1h\n  secretStoreRef: {kind: ClusterSecretStore, name: gcp}\n  target: {creationPolicy: Owner, name: s}\n  data:\n    - secretKey: a\n      remoteRef: {key: ra}\n    - secretKey: b\n      remoteRef: {key: rb, version: \"3\"}\n")
	}
	return b.Bytes()
}

// BenchmarkCodecLibrary is the codec as sigs.k8s.io/yaml and utiljson give
// it (kubectl's path), the reference for BenchmarkCodec.
func BenchmarkCodecLibrary(b *testing.B) {
	data := benchStream(1000)
	docs := split(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range docs {
			if blank(c.data) {
				continue
			}
			v, err := libraryDecode(c.data)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := yaml.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCodec is Decode + Encode of the same stream.
func BenchmarkCodec(b *testing.B) {
	data := benchStream(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		objs, err := Decode("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		if err := Encode(&out, objs, "yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
