package defaults

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/benchdata"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// stream is the shared benchmark stream (benchdata.Stream).
func stream(n int) []byte { return benchdata.Stream(n) }

func benchEngine(b *testing.B) *Engine {
	return benchEngineOf(b, [2]string{"external-secrets", "v2.5.0"}, [2]string{"cert-manager", "v1.19.0"})
}

// benchEngineOf loads the shipped profiles, resolves refs and compiles them.
func benchEngineOf(b *testing.B, refs ...[2]string) *Engine {
	st, err := operators.Load(operators.LoadOptions{Embedded: profiles.FS})
	if err != nil {
		b.Fatal(err)
	}
	var res []*operators.Resolution
	for _, ref := range refs {
		r, err := st.Resolve(ref[0], ref[1], true)
		if err != nil {
			b.Fatal(err)
		}
		res = append(res, r)
	}
	e, err := Compile(res, nil)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkDecodeEncode is the floor: what any tool pays to read and write
// the stream. BenchmarkFill must stay within 1.10x of it.
func BenchmarkDecodeEncode(b *testing.B) {
	data := stream(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		objs, err := manifest.Decode("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		if err := manifest.Encode(io.Discard, objs, "yaml"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/object")
}

// BenchmarkFill is decode, fill with ESO 2.5.0 and cert-manager 1.19.0, encode.
func BenchmarkFill(b *testing.B) {
	data := stream(10000)
	e := benchEngine(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		objs, err := manifest.Decode("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		for i := range objs {
			if err := e.Fill(objs[i].Data, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := manifest.Encode(io.Discard, objs, "yaml"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/object")
}

// BenchmarkFillOnly is the engine alone on decoded objects.
func BenchmarkFillOnly(b *testing.B) {
	objs, err := manifest.Decode("bench", stream(10000))
	if err != nil {
		b.Fatal(err)
	}
	e := benchEngine(b)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		fresh, _ := manifest.Decode("bench", stream(10000))
		b.StartTimer()
		for i := range fresh {
			if err := e.Fill(fresh[i].Data, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	_ = objs
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/object")
}

// BenchmarkLoadResolveCompile is the per-run start-up cost of profiles.
func BenchmarkLoadResolveCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchEngine(b)
	}
}

// BenchmarkFillRatio alternates decode+encode and decode+fill+encode of the
// same 10,000-object stream inside one loop, so load on a noisy machine hits
// both alike, and reports fill/baseline as "ratio" (target: <= 1.10).
func BenchmarkFillRatio(b *testing.B) {
	data := stream(10000)
	e := benchEngine(b)
	var base, fill time.Duration
	pass := func(withFill bool) time.Duration {
		start := time.Now()
		var out bytes.Buffer
		enc, _ := manifest.NewEncoder(&out, "yaml")
		err := manifest.Each("bench", data, manifest.DefaultLimits, func(o manifest.Object) error {
			if withFill {
				if err := e.Fill(o.Data, nil); err != nil {
					return err
				}
			}
			return enc.Encode(o)
		})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for b.Loop() {
		base += pass(false)
		fill += pass(true)
	}
	b.ReportMetric(float64(fill)/float64(base), "ratio")
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N)/10000, "base-ns/object")
	b.ReportMetric(float64(fill.Nanoseconds())/float64(b.N)/10000, "fill-ns/object")
}

// BenchmarkLoadResolveCompileLarge is the start-up cost with the largest
// shipped profile selected (prometheus-operator 0.93.0, 1,328 defaults).
func BenchmarkLoadResolveCompileLarge(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchEngineOf(b, [2]string{"prometheus-operator", "v0.93.0"})
	}
}

// BenchmarkGenerateRatio is what generate does with each object — decode,
// fill, encode as manifest.JSONStream — interleaved in one loop with the
// same work encoding YAML (what it did before), reporting json/yaml as
// "ratio" and the time per object of each.
func BenchmarkGenerateRatio(b *testing.B) {
	data := stream(10000)
	e := benchEngine(b)
	pass := func(format string) time.Duration {
		start := time.Now()
		var out bytes.Buffer
		enc, _ := manifest.NewEncoder(&out, format)
		err := manifest.Each("bench", data, manifest.DefaultLimits, func(o manifest.Object) error {
			if err := e.Fill(o.Data, nil); err != nil {
				return err
			}
			return enc.Encode(o)
		})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var js, ys time.Duration
	for b.Loop() {
		js += pass(manifest.JSONStream)
		ys += pass("yaml")
	}
	b.ReportMetric(float64(js)/float64(ys), "ratio")
	b.ReportMetric(float64(js.Nanoseconds())/float64(b.N)/10000, "json-ns/object")
	b.ReportMetric(float64(ys.Nanoseconds())/float64(b.N)/10000, "yaml-ns/object")
}

// BenchmarkDecode is decoding the 10,000-object stream alone.
func BenchmarkDecode(b *testing.B) {
	data := stream(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := manifest.Each("bench", data, manifest.DefaultLimits, func(manifest.Object) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/object")
}
