#!/usr/bin/env bash
# Maintainer checks that read the upstream CRDs in ../shared/crds (never
# committed). .ci/run calls this when that directory exists.
set -euo pipefail
cd "$(dirname "$0")/.."
crds=$(cd "${CRDS_DIR:-../shared/crds}" && pwd)
echo "== shipped profiles equal what $crds generates"
./scripts/gen-profiles.sh --check
echo "== engine equals apiserver defaulting on every upstream CRD"
CMP_DEFAULTS_SHARED_CRDS=$crds go test -count=1 -run TestDifferentialUpstreamCRDs ./internal/defaults/
