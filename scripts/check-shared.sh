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
# The CRD files of each mirrored operator's newest profile, by the blob ids
# its provenance records, laid out as ../shared/crds is.
mirrors=${MIRRORS_DIR:-../.mirror}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in profiles/*/; do
  op=$(basename "$dir")
  newest=$(ls "$dir" | grep '^v.*\.yaml$' | sed 's/\.yaml$//' | sort -V | tail -1)
  file=$dir$newest.yaml
  repo=$(awk '/^  repository: /{print $2; exit}' "$file")
  [ -n "$repo" ] || continue
  git_dir=$mirrors/$(echo "${repo#github.com/}" | tr / +)/repo
  if [ ! -d "$git_dir" ]; then
    echo "== skipped: $op@$newest against its upstream CRDs, mirror $git_dir not found"
    continue
  fi
  mkdir -p "$tmp/$op/$newest"
  awk '/^    - path: /{p=$3} /^      blob: /{print p, $2}' "$file" | while read -r path blob; do
    git --git-dir="$git_dir" cat-file blob "$blob" > "$tmp/$op/$newest/$(basename "$path")"
  done
done
if [ -n "$(ls "$tmp")" ]; then
  echo "== engine equals apiserver defaulting on the upstream CRDs of: $(ls "$tmp" | tr '\n' ' ')"
  CMP_DEFAULTS_SHARED_CRDS=$tmp go test -count=1 -run TestDifferentialUpstreamCRDs ./internal/defaults/
fi
