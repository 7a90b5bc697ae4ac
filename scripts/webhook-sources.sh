#!/usr/bin/env bash
# Lay out the operator sources that webhook builds need where the Go module
# proxy does not serve a release: a test/e2e/webhook-NAME/go.vTAG.mod that
# says `replace MODULE => ./src/TAG` builds the operator from its own source
# at that git tag, read from the bare git mirror of its repository in
# $MIRRORS_DIR (as scripts/gen-profiles.sh takes it; unset: .mirror next to
# this checkout), its dependencies from the proxy. src/TAG/.commit records
# the commit, which the learned file names. src/ is not committed.
# Maintainers only (scripts/learn-webhooks.sh runs it). Arguments limit it to
# those webhook modules (webhook-kruise webhook-capi): one operator's sources
# need only that operator's mirror; SOURCE_TAGS="v1.2.3 ..." limits it to
# those tags (scripts/webhook-release.sh adds one release).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case ${MIRRORS_DIR:-} in
"") mirrors=$root/../.mirror ;;
/*) mirrors=$MIRRORS_DIR ;;
*) mirrors=$PWD/$MIRRORS_DIR ;;
esac
for dir in "$root"/test/e2e/webhook-*/; do
  name=$(basename "$dir")
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
    continue
  fi
  case $name in
  webhook-cnpg) mirror=cloudnative-pg+cloudnative-pg prefix= ;;
  webhook-knative) mirror=knative+serving prefix=knative- ;;
  webhook-tekton) mirror=tektoncd+pipeline prefix= ;;
  webhook-eventing) mirror=knative+eventing prefix=knative- ;;
  webhook-kruise) mirror=openkruise+kruise prefix= ;;
  webhook-capi) mirror=kubernetes-sigs+cluster-api prefix= ;;
  webhook-promop) mirror=prometheus-operator+prometheus-operator prefix= ;;
  webhook-kserve) mirror=kserve+kserve prefix= ;;
  *) continue ;;
  esac
  for modfile in "$dir"go.v*.mod; do
    tag=$(sed -n 's|^replace [^ ]* => \./src/\([^/ ]*\)$|\1|p' "$modfile")
    [ -n "$tag" ] || continue
    if [ -n "${SOURCE_TAGS:-}" ] && [[ " $SOURCE_TAGS " != *" $tag "* ]]; then
      continue
    fi
    out=$dir/src/$tag
    [ -f "$out/.commit" ] && continue
    git_dir=$mirrors/$mirror/repo
    if [ ! -d "$git_dir" ]; then
      echo "$modfile builds from source, and the mirror $git_dir is not there (git clone --mirror)" >&2
      exit 1
    fi
    rm -rf "$out" && mkdir -p "$out"
    # A mirror may lack the blobs of its largest files (a generated
    # bundle): those are left out, and said; a build that needs one fails.
    git -C "$git_dir" ls-tree -r -z "$prefix$tag" | tr '\0' '\n' | awk -F'\t' '{split($1, a, " "); if (a[2] == "blob") print a[3] "\t" $2}' >"$out.tree"
    cut -f1 "$out.tree" | git -C "$git_dir" cat-file --batch-check | awk '$2 == "missing" {print $1}' >"$out.missing"
    if [ -s "$out.missing" ]; then
      echo "$name: $prefix$tag: left out the files whose blobs the mirror lacks: $(grep -F -f "$out.missing" "$out.tree" | cut -f2- | tr '\n' ' ')" >&2
      grep -v -F -f "$out.missing" "$out.tree" | cut -f2- | tr '\n' '\0' |
        xargs -0 -n 500 sh -c 'd=$0 t=$1 o=$2; shift 2; git --literal-pathspecs -C "$d" archive "$t" -- "$@" 2>/dev/null | tar -x -C "$o"' "$git_dir" "$prefix$tag" "$out"
      # git archive names a missing blob even where it is left out: the
      # count of files laid out is the check.
      want=$(($(wc -l <"$out.tree") - $(wc -l <"$out.missing")))
      got=$(find "$out" -type f -o -type l | wc -l)
      if [ "$got" != "$want" ]; then
        echo "$name: $prefix$tag: laid out $got of $want files" >&2
        exit 1
      fi
    else
      git -C "$git_dir" archive "$prefix$tag" | tar -x -C "$out"
    fi
    rm -f "$out.tree" "$out.missing"
    git -C "$git_dir" rev-parse "$prefix$tag^{commit}" >"$out/.commit"
    echo "$name: the source of $prefix$tag at $(cat "$out/.commit") in $out"
  done
  # A dependency the proxy refuses is replaced with the copy the release
  # vendors (./src/TAG/vendor/MODULE): exactly what the release built
  # with. vendor/ keeps no go.mod, so one naming the module is written,
  # with the release's own go version.
  for modfile in "$dir"go.v*.mod; do
    sed -n 's|^replace \([^ ]*\) => \./src/\(\([^/ ]*\)/vendor/[^ ]*\)$|\1 \2 \3|p' "$modfile" | while read -r module path tag; do
      [ -d "$dir/src/$tag" ] || continue
      go=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$dir/src/$tag/go.mod")
      [ -f "$dir/src/$path/go.mod" ] || printf 'module %s\n\ngo %s\n' "$module" "$go" >"$dir/src/$path/go.mod"
    done
  done
done
