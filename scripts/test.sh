#!/usr/bin/env bash
# The project's test command: unit tests, CLI testscripts, and the Argo CD
# end-to-end modules. Everything it needs comes from the Go module proxy.
#
#   scripts/test.sh          everything: what CI runs (.ci/run)
#   E2E=0 scripts/test.sh    everything but the end-to-end modules of test/e2e (their
#                            go.mod tidiness and run.sh): no Kubernetes or Argo CD to build
set -euo pipefail
case "${E2E:-1}" in
  0 | 1) ;;
  *) echo "scripts/test.sh: E2E=${E2E}: use E2E=0 to skip the end-to-end modules, or leave it unset" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
# step NAME CMD...: runs CMD, then prints its wall and CPU seconds (the commands it
# ran, summed over cores), so a slow CI run shows where its time went.
stats="$(mktemp)"
trap 'rm -f "$stats"' EXIT
cpu() { # sets CPU: user+sys seconds of this script's finished commands ('times' in this shell)
  times >"$stats"
  CPU="$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } } END { printf "%d", s }' "$stats")"
}
step() {
  local name="$1" t0=$SECONDS c0
  cpu; c0=$CPU
  shift
  "$@"
  cpu
  echo "-- $name: $((SECONDS - t0)) s wall, $((CPU - c0)) CPU-s (${SECONDS} s since the start)"
}
# go.mod and go.sum are exactly what 'go mod tidy' writes (direct requirements
# marked direct, nothing missing or stale), here and in the e2e modules.
tidy() { (cd "$1" && GOTOOLCHAIN="${2:-${GOTOOLCHAIN:-auto}}" go mod tidy -diff) || { echo "$1: go.mod/go.sum are not tidy: run 'go mod tidy' there" >&2; exit 1; }; }
tidy_all() {
  tidy .
  [ "${E2E:-1}" = 0 ] && return
  for m in test/e2e/cmp-v2 test/e2e/e2ekit; do tidy "$m"; done
  tidy test/e2e go1.27.3
  tidy cmd/cmp-defaults-appset go1.27.3
}
step "go mod tidy" tidy_all
# vet, staticcheck and go test build as the image does (CGO_ENABLED=0 -trimpath),
# so the image's linux/amd64 build and e2e's cmp-defaults binary reuse their
# compiled packages instead of compiling the module's dependencies again.
root_go() { CGO_ENABLED=0 GOFLAGS="$(go env GOFLAGS) -trimpath" "$@"; }
# The packages with code of their own per system, vetted for linux/arm64 too:
# the image's other platform, whose whole build is the release workflow's.
vet() { root_go go vet ./... && GOOS=linux GOARCH=arm64 root_go go vet ./internal/sandbox ./internal/supervisor ./internal/guard; }
step "go vet" vet
# staticcheck, pinned, fetched through the Go module proxy (its own module graph,
# nothing added to go.mod); default checks.
step staticcheck root_go go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# The GitHub workflows (release), checked by actionlint, pinned, from the module proxy.
step actionlint go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
# Includes go test ./scripts/image: builds the linux/amd64 image twice (reproducible);
# the release workflow builds every platform.
step "go test" root_go go test -count=1 -timeout 30m ./...
# Each fuzz target for a short while (seed corpora in testdata/fuzz run in every 'go test'),
# with Go 1.27.3 (already fetched for the e2e modules): Go 1.26's fuzzing coordinator can
# report its own -fuzztime deadline as a failure, "context deadline exceeded" with no
# failing input (golang/go#75804, fixed in Go 1.27; seen here on a cold run).
# Fuzzing instruments every package it builds, and so does -race: both at once
# make one instrumented build of the dependencies instead of two. The race run
# is TestConcurrentRenders (parallel runs in one process must not share mutable
# state), run before cmd/cmp-defaults' fuzz target on the same build.
fuzz() { CGO_ENABLED=1 GOTOOLCHAIN="${FUZZ_TOOLCHAIN:-go1.27.3}" go test -race -run "${3:-XXX}" -fuzz "^$1\$" -fuzztime "${FUZZTIME:-5s}" "$2"; }
fuzz_all() {
  fuzz FuzzFillStream ./cmd/cmp-defaults '^TestConcurrentRenders$'
  fuzz FuzzDecode ./internal/manifest
  fuzz FuzzFill ./internal/defaults
  fuzz FuzzParseProfile ./internal/operators
  fuzz FuzzCompileJQ ./internal/operators
  fuzz FuzzUnmarshalCompiled ./internal/operators
  fuzz FuzzFromEnv ./internal/cmpenv
  fuzz FuzzKustomizePreflight ./internal/render
}
step "race and fuzz" fuzz_all
if [ "${E2E:-1}" = 0 ]; then
  echo "-- e2e: skipped (E2E=0)"
elif [ -x test/e2e/run.sh ]; then
  step e2e test/e2e/run.sh
fi
# The whole run has a budget: a run past it fails here. A cold run (empty Go
# caches, 2 cores) must finish within 60 minutes and CI stops at 90; the budget
# sits below both, so growth fails a run before it reaches either.
budget="${TEST_BUDGET_MINUTES:-55}"
echo "-- total: ${SECONDS} s wall (budget ${budget} minutes)"
if [ "$SECONDS" -gt $((budget * 60)) ]; then
  echo "scripts/test.sh: FAIL: the run took $((SECONDS / 60)) minutes, over its ${budget}-minute budget: see the steps' times above" >&2
  exit 1
fi
