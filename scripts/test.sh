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
go vet ./...
go test -count=1 ./...
if [ -x test/e2e/run.sh ]; then
  test/e2e/run.sh
fi
