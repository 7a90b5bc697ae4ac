#!/usr/bin/env bash
# Regenerate (or, with --check, verify) every shipped operator's profiles,
# index and docs page from the sources profiles/catalog.yaml names:
#   source: dir     raw CRDs per release, $CRDS_DIR/<operator>/<tag>/*.yaml
#   source: mirror  a bare git mirror per upstream repository, as
#                   `git clone --mirror URL $MIRRORS_DIR/<owner>+<repo>/repo`
#                   makes it, read tag by tag (no work tree)
# CRDS_DIR and MIRRORS_DIR are taken as given, relative to where this script
# is called from; unset, they are shared/crds and .mirror next to this
# checkout. An operator whose source is absent is skipped with a message.
# Maintainers only: upstream files are read, never committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
crds=$(abs "${CRDS_DIR:-$root/../shared/crds}")
mirrors=$(abs "${MIRRORS_DIR:-$root/../.mirror}")
cd "$root"
args=(-catalog profiles/catalog.yaml -crds "$crds" -mirrors "$mirrors" -out profiles -docs docs/operators)
if [ "${1:-}" = "--check" ]; then
  args+=(-check)
fi
exec go run ./scripts/genprofiles "${args[@]}"
