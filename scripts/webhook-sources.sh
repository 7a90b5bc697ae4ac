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
# need only that operator's mirror.
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
    out=$dir/src/$tag
    [ -f "$out/.commit" ] && continue
    git_dir=$mirrors/$mirror/repo
    if [ ! -d "$git_dir" ]; then
      echo "$modfile builds from source, and the mirror $git_dir is not there (git clone --mirror)" >&2
      exit 1
    fi
    rm -rf "$out" && mkdir -p "$out"
    # A mirror may lack its largest blobs (release install bundles):
    # those files are left out (a build reads none of them), the others
    # archived by name (tar -i reads xargs' several archives).
    missing=$(git -C "$git_dir" ls-tree -r "$prefix$tag" | awk '$2 == "blob" {print $3}' |
      git -C "$git_dir" cat-file --batch-check | awk '$2 == "missing" {print $1}')
    if [ -z "$missing" ]; then
      git -C "$git_dir" archive "$prefix$tag" | tar -x -C "$out"
    else
      git -C "$git_dir" ls-tree -r -z "$prefix$tag" | grep -zvF "$missing" | cut -z -f2- |
        xargs -0 git -C "$git_dir" --literal-pathspecs archive "$prefix$tag" -- | tar -x -i -C "$out"
      echo "$name: $(wc -w <<<"$missing") file(s) of $prefix$tag absent from the mirror, left out" >&2
    fi
    git -C "$git_dir" rev-parse "$prefix$tag^{commit}" >"$out/.commit"
    echo "$name: the source of $prefix$tag at $(cat "$out/.commit") in $out"
  done
  # A dependency the proxy refuses is replaced with the copy the release
  # vendors (./src/TAG/vendor/MODULE): exactly what the release built
  # with. vendor/ keeps no go.mod, so one naming the module is written,
  # with the release's own go version.
  for modfile in "$dir"go.v*.mod; do
    sed -n 's|^replace \([^ ]*\) => \./src/\(\([^/ ]*\)/vendor/[^ ]*\)$|\1 \2 \3|p' "$modfile" | while read -r module path tag; do
      go=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$dir/src/$tag/go.mod")
      [ -f "$dir/src/$path/go.mod" ] || printf 'module %s\n\ngo %s\n' "$module" "$go" >"$dir/src/$path/go.mod"
    done
  done
done
