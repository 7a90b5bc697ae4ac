#!/usr/bin/env bash
# Add a release to a webhook module: write test/e2e/webhook-NAME/go.vV.mod
# (and its .sum) pinning the operator at release TAG and its other direct
# requirements at the release's own pins, so the graph is the release's,
# not a newer one's. The requirement list is the template's (the newest
# go.v*.mod of the same minor line, else go.mod, or the third argument).
# Where the module proxy does not serve the release, the file replaces the
# module with its source at the tag (scripts/webhook-sources.sh lays it
# out from the git mirror in MIRRORS_DIR), and so are the release's own
# submodules the proxy refuses (its go.mod replaces them by its folders);
# SOURCE=1 builds from the source
# at the tag even where the proxy serves the release: for a module whose
# proxy copy is not the tag's commit (the script says so where the mirror
# tells: the proxy's Origin hash differs from the tag's, or it records
# none). It then prints the modules whose selected version is not the
# release's own pin. The suite learns it with
# E2E_<NAME>_RELEASES=TAG (scripts/learn-webhooks.sh).
# A module whose files import packages only some releases have (build
# tags) cannot be tidied: TAGS=wrappers resolves the requirements from the
# packages those tags select instead.
# Maintainers only: needs the Go module proxy.
# Usage: [TAGS=...] [SOURCE=1] scripts/webhook-release.sh NAME TAG [TEMPLATE]
#   NAME: eventing, knative, capi, promop, kserve, kruise, tekton, cnpg
set -euo pipefail
[ $# -ge 2 ] || {
  echo "usage: $0 NAME TAG [TEMPLATE]" >&2
  exit 2
}
name=$1 tag=$2
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/test/e2e/webhook-$name
[ -d "$dir" ] || {
  echo "no webhook module $dir" >&2
  exit 2
}
IFS=. read -r _ minor patch <<<"${tag#v}"
version=$tag gittag=$tag
case $name in
eventing | knative)
  # Knative release 1.N.P is the module's v0.(N+27).P, tagged knative-v1.N.P.
  version=v0.$((minor + 27)).$patch gittag=knative-$tag
  module=knative.dev/$([ "$name" = eventing ] && echo eventing || echo serving)
  mirror=knative+$([ "$name" = eventing ] && echo eventing || echo serving)
  ;;
capi) module=sigs.k8s.io/cluster-api mirror=kubernetes-sigs+cluster-api ;;
promop) module=github.com/prometheus-operator/prometheus-operator mirror=prometheus-operator+prometheus-operator ;;
kserve) module=github.com/kserve/kserve mirror=kserve+kserve ;;
kruise) module=github.com/openkruise/kruise mirror=openkruise+kruise ;;
tekton) module=github.com/tektoncd/pipeline mirror=tektoncd+pipeline ;;
cnpg) module=github.com/cloudnative-pg/cloudnative-pg mirror=cloudnative-pg+cloudnative-pg ;;
*)
  echo "unknown webhook module $name" >&2
  exit 2
  ;;
esac
case ${MIRRORS_DIR:-} in
"") mirrors=$root/../.mirror ;;
/*) mirrors=$MIRRORS_DIR ;;
*) mirrors=$PWD/$MIRRORS_DIR ;;
esac
modfile=go.$version.mod
cd "$dir"
template=${3:-}
if [ -z "$template" ]; then
  IFS=. read -r vmajor vminor _ <<<"${version#v}"
  template=$(ls go.v*.mod 2>/dev/null | grep -F "go.v$vmajor.$vminor." | grep -vxF "$modfile" | sort -V | tail -1 || true)
  template=${template:-go.mod}
fi
work=$(mktemp -d)
# Every go.vV.mod present is a release to the suite: a run that fails
# removes the files it wrote, so none is left half-made.
sumfile=${modfile%.mod}.sum
wrote=()
[ -e "$modfile" ] || wrote+=("$modfile")
[ -e "$sumfile" ] || wrote+=("$sumfile")
cleanup() {
  status=$?
  rm -rf "$work"
  if [ $status -ne 0 ] && [ ${#wrote[@]} -gt 0 ]; then
    rm -f "${wrote[@]}"
    echo "$name $tag: failed; removed ${wrote[*]}" >&2
  fi
}
trap cleanup EXIT

# The release's own go.mod: the proxy's copy, else the tag's.
served=1
if ! GOFLAGS=-mod=mod go mod download -json "$module@$version" >"$work/info.json" 2>/dev/null ||
  jq -e .Error "$work/info.json" >/dev/null; then
  served=0
fi
git_dir=$mirrors/$mirror/repo
if [ $served = 1 ] && [ -d "$git_dir" ]; then
  origin=$(jq -r '.Origin.Hash // empty' "$work/info.json")
  commit=$(git -C "$git_dir" rev-parse "$gittag^{commit}" 2>/dev/null || true)
  if [ "$origin" != "$commit" ]; then
    echo "the proxy's $module $version is ${origin:-of no recorded commit}, the tag $gittag is $commit: SOURCE=1 builds from the tag" >&2
  fi
fi
forced=0
if [ "${SOURCE:-}" = 1 ] && [ $served = 1 ]; then
  served=0 forced=1
fi
if [ $served = 1 ]; then
  cp "$(jq -r .GoMod "$work/info.json")" "$work/release.mod"
else
  [ -d "$git_dir" ] || {
    echo "no source for $module $version (the proxy does not serve it, or SOURCE=1) and the mirror $git_dir is not there" >&2
    exit 1
  }
  git -C "$git_dir" show "$gittag:go.mod" >"$work/release.mod"
fi
go mod edit -json "$work/release.mod" >"$work/release.json"

go mod edit -json "$template" >"$work/template.json"
pin() { jq -r --arg p "$1" '[.Require[]? | select(.Path == $p) | .Version][0] // empty' "$work/release.json"; }

{
  printf 'module %s\n\ngo %s\n\nrequire (\n' "$(jq -r .Module.Path "$work/template.json")" "$(jq -r .Go "$work/template.json")"
  jq -r '.Require[] | select(.Indirect | not) | "\(.Path) \(.Version)"' "$work/template.json" | while read -r path v; do
    case $path in
    "$module" | "$module"/*) v=$version ;;
    *) v=$(pin "$path") v=${v:-$(jq -r --arg p "$path" '.Require[] | select(.Path == $p) | .Version' "$work/template.json")} ;;
    esac
    printf '\t%s %s\n' "$path" "$v"
  done
  printf ')\n'
  # The release's own replacements of modules by other versions (not its
  # local folders) hold for its build here too.
  jq -r '.Replace[]? | select(.New.Version != null) | "\(.Old.Path)\(if .Old.Version then " " + .Old.Version else "" end) => \(.New.Path) \(.New.Version)"' "$work/release.json" |
    while read -r line; do printf '\n// %s %s replaces it.\nreplace %s\n' "$module" "$version" "$line"; done
  if [ $served = 0 ]; then
    if [ $forced = 1 ]; then
      printf '\n// The module proxy'"'"'s %s %s is not known to be the commit of\n// its tag (it records another, or none): built from the source at the tag\n// (SOURCE=1; scripts/webhook-sources.sh lays it out).\n' "$module" "$version"
    else
      printf '\n// The module proxy does not serve %s %s: built from the source\n// at its tag (scripts/webhook-sources.sh lays it out).\n' "$module" "$version"
    fi
    printf 'replace %s => ./src/%s\n' "$module" "$tag"
  fi
} >"$modfile"
if [ $served = 0 ]; then
  SOURCE_TAGS=$tag "$root/scripts/webhook-sources.sh" "webhook-$name"
  # A requirement the proxy refuses is the copy the release vendors
  # (webhook-sources.sh gives it a go.mod).
  if [ -d "src/$tag/vendor" ]; then
    jq -r '.Require[] | select(.Indirect | not) | "\(.Path) \(.Version)"' "$work/release.json" | while read -r path v; do
      # A module the release itself replaces by a version keeps that.
      if jq -e --arg p "$path" '.Replace[]? | select(.Old.Path == $p and .New.Version != null)' "$work/release.json" >/dev/null; then
        continue
      fi
      if [ -d "src/$tag/vendor/$path" ] && ! GOFLAGS=-mod=mod go mod download -json "$path@$v" >/dev/null 2>&1; then
        printf '\n// Nor %s %s: the copy the release vendors.\nreplace %s => ./src/%s/vendor/%s\n' "$path" "$v" "$path" "$tag" "$path" >>"$modfile"
      fi
    done
    SOURCE_TAGS=$tag "$root/scripts/webhook-sources.sh" "webhook-$name"
  fi
  # A module the release replaces by one of its own folders (a submodule
  # such as prometheus-operator's pkg/client) and the proxy refuses at the
  # pinned version is that folder at the tag.
  jq -r '.Replace[]? | select(.New.Version == null) | "\(.Old.Path) \(.New.Path)"' "$work/release.json" | while read -r path folder; do
    case $folder in ./*) ;; *) continue ;; esac
    v=$(pin "$path")
    if [ -n "$v" ] && [ -d "src/$tag/${folder#./}" ] && ! GOFLAGS=-mod=mod go mod download -json "$path@$v" >/dev/null 2>&1; then
      printf '\n// Nor %s %s: the tag'"'"'s folder %s.\nreplace %s => ./src/%s/%s\n' "$path" "$v" "${folder#./}" "$path" "$tag" "${folder#./}" >>"$modfile"
    fi
  done
fi
if [ -n "${TAGS:-}" ]; then
  GOFLAGS=-mod=mod go list -modfile="$modfile" -tags="$TAGS" -deps . >/dev/null
else
  go mod tidy -modfile="$modfile" || {
    echo "$name $tag: go mod tidy failed; if the module's files import packages only some releases have, give the release's build tags: TAGS=... $0 $name $tag" >&2
    exit 1
  }
fi
# go4.org/unsafe/assume-no-moving-gc before its version of 2023-11-21
# panics at start on every Go it names no assurance for (all since 1.21):
# that version asks the runtime instead.
nomove=go4.org/unsafe/assume-no-moving-gc nomove_v=v0.0.0-20231121144256-b99613f794b6
if go mod edit -json "$modfile" | jq -e --arg p $nomove --arg v $nomove_v '.Require[]? | select(.Path == $p and .Version < $v)' >/dev/null; then
  go mod edit -require=$nomove@$nomove_v "$modfile"
  GOFLAGS=-mod=mod go list -modfile="$modfile" ${TAGS:+-tags="$TAGS"} -deps . >/dev/null
fi
echo "$dir/$modfile from $template ($([ $served = 1 ] && echo module || echo "source at $gittag"))"
# What the graph selects above the release's own pins (the harness's own
# requirements, or a module the release's tag names but its go.mod lacks).
go mod edit -json "$modfile" | jq -r '.Require[] | "\(.Path) \(.Version)"' | while read -r path v; do
  own=$(pin "$path")
  if [ -n "$own" ] && [ "$own" != "$v" ]; then
    echo "  $path $v (the release pins $own)"
  fi
done
