#!/usr/bin/env bash
# Runs cmp-defaults inside Argo CD's real CMP server, for both supported Argo CD lines:
#   test/e2e/cmp-v2  Argo CD v2.14.21, with this machine's Go: a module of its own
#   test/e2e/cmp-v3  Argo CD v3.6.1, which needs Go 1.27: GOTOOLCHAIN=go1.27.3
# then against a real kube-apiserver on Kubernetes 1.37 (GOTOOLCHAIN=go1.27.3):
#   test/e2e/apiserver   gitops-engine's sync and diff in every mode, operators' webhooks
#   test/e2e/controller  Argo CD v3.6.1's application controller and repo-server
# cmp-v3, apiserver and controller are packages of one module, test/e2e (one module
# graph, compiled once); cmp-v2 pins other Kubernetes and Argo CD releases and keeps its own.
# Then cmd/cmp-defaults-appset (Argo CD v3.6.1's ApplicationSet code, for preview), a module
# pinned like test/e2e: run after it, it compiles only its own packages.
#
# Two go test runs at once: cmp-v2 (its own graph), beside one go test of the three
# packages of test/e2e, so the go command compiles their shared graph once (two runs
# of the same module side by side compile the same Kubernetes packages twice) and
# runs each test binary as soon as it is linked. Each run's output is printed when
# both are done. E2E_SERIAL=1 runs one after the other instead, printing each run's
# output when it ends.
#
# The cmp-defaults binary is built once, like the image builds it (scripts/image), and shared by
# all suites through CMP_DEFAULTS_BIN. Extra arguments go to `go test` (e.g. -run TestGenerate -v).
# Exits non-zero if the build or any test fails; prints go test's summary lines.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
v3_toolchain="${CMP_DEFAULTS_E2E_V3_TOOLCHAIN:-go1.27.3}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/cmp-e2e.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

start=$SECONDS
echo "== build cmp-defaults (CGO_ENABLED=0 -trimpath -ldflags '-s -w', as in the image)"
if ! (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/cmp-defaults" ./cmd/cmp-defaults); then
	echo "FAIL: building cmp-defaults" >&2
	exit 1
fi
echo "   built in $((SECONDS - start))s, $(stat -c %s "$tmp/cmp-defaults") bytes"
export CMP_DEFAULTS_BIN="$tmp/cmp-defaults"

suites=(cmp-v2 v3 appset)
# toolchain_of name: the GOTOOLCHAIN a suite runs with ("" for this machine's Go).
toolchain_of() { case "$1" in cmp-v2) echo "" ;; *) echo "$v3_toolchain" ;; esac; }
# where_of name: the module directory a suite's go test runs in, then its packages.
where_of() { case "$1" in cmp-v2) echo "$1 ./..." ;; appset) echo "../../cmd/cmp-defaults-appset ./..." ;; *) echo ". ./cmp-v3/ ./apiserver/ ./controller/" ;; esac; }
header() { local tc; tc="$(toolchain_of "$1")"; echo "== $1 (GOTOOLCHAIN=${tc:-${GOTOOLCHAIN:-default}})"; }

# run_module name go-test-args...: one go test run (cmp-v2, or v3: the packages of test/e2e). Its output goes to
# $tmp/name.log, its exit code and seconds to $tmp/name.rc. The apiserver suite
# builds CloudNativePG's, Knative Serving's and Eventing's and Tekton's webhooks; the controller suite starts the whole
# of Argo CD's control plane and waits for real syncs: each gets 30 minutes, more than
# go test's default 10 on a loaded 2-core machine.
run_module() {
	local name="$1" toolchain log="$tmp/$1.log" t0=$SECONDS rc timeout=() dir pkgs
	toolchain="$(toolchain_of "$name")"
	read -r dir pkgs < <(where_of "$name")
	case "$name" in v3) timeout=(-timeout=30m) ;; esac
	shift
	(
		cd "$here/$dir" || exit 1
		if [ -n "$toolchain" ]; then
			export GOTOOLCHAIN="$toolchain"
		else
			# This machine's Go, built like cmp-defaults above: the standard
			# library compiled for it is reused instead of compiled again.
			export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
		fi
		# shellcheck disable=SC2086 # pkgs is a list of package patterns
		go test -count=1 "${timeout[@]}" "$@" $pkgs 2>&1
	) >"$log"
	rc=$?
	echo "$rc $((SECONDS - t0))" >"$tmp/$name.rc"
}

if [ -n "${E2E_SERIAL:-}" ]; then
	for name in "${suites[@]}"; do
		header "$name"
		run_module "$name" "$@"
		cat "$tmp/$name.log"
	done
else
	echo "== at once: cmp-v2, beside cmp-v3, apiserver and controller (one go test of test/e2e); then appset"
	run_module cmp-v2 "$@" &
	run_module v3 "$@" &
	wait
	run_module appset "$@"
	for name in "${suites[@]}"; do
		[ -f "$tmp/$name.log" ] || continue
		header "$name"
		cat "$tmp/$name.log"
	done
fi

status=0
summary=()
for name in "${suites[@]}"; do
	if [ ! -f "$tmp/$name.rc" ]; then
		summary+=("$name: did not run")
		status=1
		continue
	fi
	read -r rc secs <"$tmp/$name.rc"
	# go test's summary lines: ok/FAIL per package, and failed tests.
	while IFS= read -r line; do summary+=("$name: $line"); done \
		< <(grep -E '^(ok|FAIL|---|panic:)|^\s+--- FAIL|no test files' "$tmp/$name.log" | grep -vE '^--- (PASS|SKIP)')
	summary+=("$name: exit $rc in ${secs}s")
	[ "$rc" -eq 0 ] || status=1
done

echo "== e2e summary (${SECONDS}s in all)"
printf '%s\n' "${summary[@]}"
if [ "$status" -ne 0 ]; then
	echo "e2e: FAIL"
else
	echo "e2e: ok"
fi
exit "$status"
