#!/usr/bin/env bash
# Maintainer checks that read upstream CRDs (never committed): the raw CRDs
# in ../shared/crds ($CRDS_DIR) and the bare git mirrors in ../.mirror
# ($MIRRORS_DIR). .ci/run calls this when ../shared/crds exists; each check
# is skipped, with a message, where its sources are absent.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== shipped profiles and docs equal what profiles/catalog.yaml's sources generate"
./scripts/gen-profiles.sh --check
crds=${CRDS_DIR:-../shared/crds}
if [ -d "$crds" ]; then
  crds=$(cd "$crds" && pwd)
  echo "== engine equals apiserver defaulting on every upstream CRD in $crds"
  CMP_DEFAULTS_SHARED_CRDS=$crds go test -count=1 -run TestDifferentialUpstreamCRDs ./internal/defaults/
else
  echo "== skipped: engine against the upstream CRDs, $crds not found"
fi
