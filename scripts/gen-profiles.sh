#!/usr/bin/env bash
# Regenerate (or, with --check, verify) every shipped operator's profiles,
# index and docs page from the sources profiles/catalog.yaml names:
#   source: dir     raw CRDs per release in $CRDS_DIR (default ../shared/crds)
#   source: mirror  bare git mirrors in $MIRRORS_DIR (default ../.mirror),
#                   <owner>+<name>/repo as the fetch tool lays them out
# An operator whose source is absent is skipped with a message. Maintainers
# only: upstream files are read, never committed.
set -euo pipefail
cd "$(dirname "$0")/.."
args=(-catalog profiles/catalog.yaml -crds "${CRDS_DIR:-../shared/crds}" -mirrors "${MIRRORS_DIR:-../.mirror}" -out profiles -docs docs/operators)
if [ "${1:-}" = "--check" ]; then
  args+=(-check)
fi
exec go run ./scripts/genprofiles "${args[@]}"
