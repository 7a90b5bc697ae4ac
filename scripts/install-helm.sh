#!/bin/sh
# Installs the Helm 4 CLI (the version the render package links) into ./bin,
# so that internal/render's comparison test can run `helm template` against
# the in-process renderer. bin/ is git-ignored.
#
#   scripts/install-helm.sh          # then: go test ./internal/render/...
#   HELM_BIN=/path/to/helm go test ./internal/render/...   # use another binary
set -eu
cd "$(dirname "$0")/.."
version="${HELM_VERSION:-v4.3.1}"
GOBIN="$PWD/bin" go install "helm.sh/helm/v4/cmd/helm@${version}"
"$PWD/bin/helm" version --short
