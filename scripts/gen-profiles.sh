#!/usr/bin/env bash
# Regenerate (or, with --check, verify) the shipped profiles from the raw
# upstream CRDs in ../shared/crds. Maintainers only: the CRDs are never committed.
set -euo pipefail
cd "$(dirname "$0")/.."
crds=${CRDS_DIR:-../shared/crds}
if [ ! -d "$crds" ]; then
  echo "gen-profiles: $crds not found; nothing to do" >&2
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  exec go run ./scripts/genprofiles -crds "$crds" -out profiles -check
fi
exec go run ./scripts/genprofiles -crds "$crds" -out profiles
