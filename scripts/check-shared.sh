#!/usr/bin/env bash
# Maintainer checks that read upstream CRDs (never committed): the raw CRDs
# in $CRDS_DIR and the bare git mirrors in $MIRRORS_DIR (`git clone --mirror`
# copies, <owner>+<repo>/repo), both as scripts/gen-profiles.sh takes them:
# relative to where this script is called from; unset, shared/crds and
# .mirror next to this checkout. .ci/run calls this when ../shared/crds
# exists; each check is skipped, with a message, where its sources are absent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
CRDS_DIR=$(abs "${CRDS_DIR:-$root/../shared/crds}")
MIRRORS_DIR=$(abs "${MIRRORS_DIR:-$root/../.mirror}")
export CRDS_DIR MIRRORS_DIR
cd "$root"
echo "== shipped profiles and docs equal what profiles/catalog.yaml's sources generate"
./scripts/gen-profiles.sh --check
if [ -d "$CRDS_DIR" ]; then
  echo "== engine equals apiserver defaulting on every upstream CRD in $CRDS_DIR"
  CMP_DEFAULTS_SHARED_CRDS=$CRDS_DIR go test -count=1 -run TestDifferentialUpstreamCRDs ./internal/defaults/
else
  echo "== skipped: engine against the upstream CRDs, $CRDS_DIR not found"
fi
# The CRD files of each mirrored operator's newest release, laid out as
# $CRDS_DIR is.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./scripts/genprofiles -catalog profiles/catalog.yaml -mirrors "$MIRRORS_DIR" -newest-crds "$tmp"
if [ -n "$(ls "$tmp")" ]; then
  echo "== engine equals apiserver defaulting on the upstream CRDs of the newest release of: $(ls "$tmp" | tr '\n' ' ')"
  CMP_DEFAULTS_SHARED_CRDS=$tmp go test -count=1 -run TestDifferentialUpstreamCRDs ./internal/defaults/
fi
# A module version the proxy cached before its tag moved is another commit
# than the release: each learned release must come from its tag's commit.
proxy=$(go env GOPROXY | cut -d, -f1)
case $proxy in
http://* | https://*)
  echo "== learned webhook releases: built from their tag's commit (mirrors in $MIRRORS_DIR, proxy $proxy)"
  go run ./scripts/genprofiles -catalog profiles/catalog.yaml -mirrors "$MIRRORS_DIR" -origins "$proxy"
  ;;
*) echo "== skipped: learned releases against their tags, GOPROXY=$(go env GOPROXY) names no proxy URL" ;;
esac
