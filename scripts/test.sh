#!/usr/bin/env bash
# The project's test command: unit tests, CLI testscripts, and the Argo CD
# end-to-end modules. Everything it needs comes from the Go module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x scripts/install-helm.sh ]; then
  # Helm 4's own CLI, to compare 'render' with 'helm template'.
  ./scripts/install-helm.sh >/dev/null
  export HELM_BIN="$PWD/bin/helm"
fi
# go.mod and go.sum are exactly what 'go mod tidy' writes (direct requirements
# marked direct, nothing missing or stale), here and in the e2e modules.
tidy() { (cd "$1" && GOTOOLCHAIN="${2:-${GOTOOLCHAIN:-auto}}" go mod tidy -diff) || { echo "$1: go.mod/go.sum are not tidy: run 'go mod tidy' there" >&2; exit 1; }; }
tidy .
for m in test/e2e/apiserver test/e2e/cmp-v2; do tidy "$m"; done
tidy test/e2e/cmp-v3 go1.27.3
go vet ./...
# staticcheck, pinned, fetched through the Go module proxy (its own module graph,
# nothing added to go.mod); default checks.
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# The GitHub workflows (release), checked by actionlint, pinned, from the module proxy.
go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
# Includes go test ./scripts/image: builds the image twice (linux/amd64 and linux/arm64).
# With a cold build cache those two -trimpath cross-builds compile every
# dependency twice: past go test's default 10 minutes on a busy 2-core machine.
go test -count=1 -timeout 30m ./...
# Parallel runs in one process must not share mutable state.
go test -count=1 -race -run 'TestConcurrentRenders' ./cmd/cmp-defaults
# Each fuzz target for a short while (seed corpora in testdata/fuzz run in every 'go test').
fuzz() { go test -run XXX -fuzz "^$1\$" -fuzztime "${FUZZTIME:-5s}" "$2"; }
fuzz FuzzDecode ./internal/manifest
fuzz FuzzFill ./internal/defaults
fuzz FuzzParseProfile ./internal/operators
fuzz FuzzCompileJQ ./internal/operators
fuzz FuzzUnmarshalCompiled ./internal/operators
fuzz FuzzFromEnv ./internal/plugin
fuzz FuzzKustomizePreflight ./internal/render
if [ -x test/e2e/run.sh ]; then
  test/e2e/run.sh
fi
