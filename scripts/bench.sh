#!/usr/bin/env bash
# Benchmarks of cmp-defaults (see BENCHMARKS.md): Go benchmarks with ratios
# against baselines run in the same process, then the whole binary against
# Helm 4's and kustomize's own CLIs, interleaved. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
echo "== building cmp-defaults, helm, kustomize" >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o bin/cmp-defaults ./cmd/cmp-defaults
./scripts/install-helm.sh >/dev/null
[ -x bin/kustomize ] || GOBIN="$PWD/bin" go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.2

echo "== Go benchmarks" >&2
out=$(go test -run XXX -cpu 1 -bench 'DecodeEncode|Fill$|FillOnly|FillRatio|GenerateRatio|LoadResolveCompile' -benchmem -count "${COUNT:-3}" ./internal/defaults/
      go test -run XXX -bench 'Codec' -benchmem -count "${COUNT:-3}" ./internal/manifest/
      go test -run XXX -bench 'Helm50|Kustomize200' -benchmem -count "${COUNT:-3}" ./internal/render/)
echo "$out" | grep -E '^(Benchmark|goos|cpu)'
echo
echo "$out" | awk '
  /^BenchmarkDecodeEncode/ {de+=$3; nde++}
  /^BenchmarkFill-/ || /^BenchmarkFill / {f+=$3; nf++}
  /^BenchmarkFillRatio/ {for (i=1;i<=NF;i++) if ($(i+1)=="ratio") {r+=$i; nr++}}
  /^BenchmarkCodecLibrary/ {cl+=$3; ncl++}
  /^BenchmarkCodec-/ {c+=$3; nc++}
  END {
    if (nde && nf) printf "fill / decode+encode: %.3f (target <= 1.10); %.0f ns/object, 10,000 objects in %.2f s\n", (f/nf)/(de/nde), (f/nf)/10000, (f/nf)/1e9
    if (nr) printf "fill / decode+encode, interleaved in one loop: %.3f (target <= 1.10)\n", r/nr
    if (ncl && nc) printf "codec / sigs.k8s.io/yaml codec: %.2f\n", (c/nc)/(cl/ncl)
  }'
echo
echo "== the binary as users run it" >&2
go run ./scripts/benchcmd -runs "${RUNS:-15}"
