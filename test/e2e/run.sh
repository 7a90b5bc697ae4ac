#!/usr/bin/env bash
# Runs cmp-defaults inside Argo CD's real CMP server, for both supported Argo CD lines:
#   test/e2e/cmp-v2  Argo CD v2.14.21, with this machine's Go (go.mod: go 1.26)
#   test/e2e/cmp-v3  Argo CD v3.6.1, which needs Go 1.27: GOTOOLCHAIN=go1.27.3 for that module only
# then against a real kube-apiserver:
#   test/e2e/apiserver   Kubernetes 1.34 and gitops-engine's diff, with this machine's Go
#   test/e2e/controller  Argo CD v3.6.1's application controller and repo-server on Kubernetes 1.37
#                        (GOTOOLCHAIN=go1.27.3, like cmp-v3)
#
# The cmp-defaults binary is built once, like the image builds it (scripts/image), and shared by
# both modules through CMP_DEFAULTS_BIN. Extra arguments go to `go test` (e.g. -run TestGenerate -v).
# Exits non-zero if the build or any test fails; prints go test's summary lines.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
v3_toolchain="${CMP_DEFAULTS_E2E_V3_TOOLCHAIN:-go1.27.3}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/cmp-e2e.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

status=0
summary=()

start=$SECONDS
echo "== build cmp-defaults (CGO_ENABLED=0 -trimpath -ldflags '-s -w', as in the image)"
if ! (cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/cmp-defaults" ./cmd/cmp-defaults); then
	echo "FAIL: building cmp-defaults" >&2
	exit 1
fi
echo "   built in $((SECONDS - start))s, $(stat -c %s "$tmp/cmp-defaults") bytes"
export CMP_DEFAULTS_BIN="$tmp/cmp-defaults"

run_module() { # name toolchain|"" go-test-args...
	local name="$1" toolchain="$2" log="$tmp/$1.log" t0=$SECONDS rc
	echo "== $name (GOTOOLCHAIN=${toolchain:-${GOTOOLCHAIN:-default}})"
	(
		cd "$here/$name" || exit 1
		if [ -n "$toolchain" ]; then export GOTOOLCHAIN="$toolchain"; fi
		go test -count=1 "${@:3}" ./... 2>&1
	) | tee "$log"
	rc=${PIPESTATUS[0]}
	# go test's summary lines: ok/FAIL per package, and failed tests.
	while IFS= read -r line; do summary+=("$name: $line"); done \
		< <(grep -E '^(ok|FAIL|---|panic:)|^\s+--- FAIL|no test files' "$log" | grep -vE '^--- (PASS|SKIP)')
	summary+=("$name: exit $rc in $((SECONDS - t0))s")
	[ "$rc" -eq 0 ] || status=1
}

run_module cmp-v2 "" "$@"
run_module cmp-v3 "$v3_toolchain" "$@"
# Builds CloudNativePG's webhook at two releases (each its own k8s.io and
# controller-runtime) inside TestCNPGWebhook: past 10 minutes when cold.
run_module apiserver "" -timeout=30m "$@"
# Starts the whole of Argo CD's control plane and waits for real syncs: more
# time than go test's default 10 minutes on a loaded 2-core machine.
run_module controller "$v3_toolchain" -timeout=30m "$@"

echo "== e2e summary"
printf '%s\n' "${summary[@]}"
if [ "$status" -ne 0 ]; then
	echo "e2e: FAIL"
else
	echo "e2e: ok"
fi
exit "$status"
