#!/bin/sh
# Installs the Helm 4 CLI (the version the render package links) into ./bin,
# for the benchmarks that time `helm template` as a process (scripts/bench.sh,
# BenchmarkHelmTemplateCLI). bin/ is git-ignored.
#
#   scripts/install-helm.sh          # then: go test -bench HelmTemplateCLI ./internal/render/
#   HELM_BIN=/path/to/helm go test -bench HelmTemplateCLI ./internal/render/   # another binary
set -eu
cd "$(dirname "$0")/.."
version="${HELM_VERSION:-v4.3.1}"
GOBIN="$PWD/bin" go install "helm.sh/helm/v4/cmd/helm@${version}"
"$PWD/bin/helm" version --short
