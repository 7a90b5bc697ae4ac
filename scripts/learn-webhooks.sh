#!/usr/bin/env bash
# Learn the shipped webhook mutations (scripts/learned/<operator>/<tag>.yaml)
# from the operators' own admission code: test/e2e/webhook-<name> builds the
# release's Go module as an HTTPS webhook, the API server suite registers it
# in a real kube-apiserver and runs 'cmp-defaults profiles learn' on
# inputs generated from test/e2e/apiserver/testdata/webhooks/<name>
# (seeds.yaml varied by vary.yaml), for every release the suite lists
# (cnpgReleases, knativeReleases, and for the others every go.vV.mod of
# their webhook module: scripts/webhook-release.sh adds one). The same run twice gives the
# same bytes; without E2E_LEARN_WRITE the suite checks the committed files.
# One release only: E2E_CNPG_RELEASES=v1.20.2 E2E_LEARN_WRITE=1 GOTOOLCHAIN=go1.27.3
# go test -count=1 -run 'TestCNPGWebhook/.*/learn$' ./apiserver/ in test/e2e.
# Then run scripts/gen-profiles.sh to merge them into the profiles.
# Maintainers only: needs the Go module proxy, and for the releases it
# refuses a git mirror of the operator's repository.
set -euo pipefail
# The releases the module proxy refuses build from the operator's source at
# their tag, laid out from the git mirrors (MIRRORS_DIR).
"$(dirname "$0")/webhook-sources.sh"
cd "$(dirname "$0")/../test/e2e"
export GOTOOLCHAIN=go1.27.3 # the test/e2e module's (Argo CD v3.6); the webhooks build with their own
E2E_CNPG_RELEASES=all E2E_LEARN_WRITE=1 go test -count=1 -run 'TestCNPGWebhook/.*/learn$' ./apiserver/
E2E_TEKTON_RELEASES=all E2E_LEARN_WRITE=1 go test -count=1 -run 'TestTektonWebhook/.*/learn$' ./apiserver/
E2E_PROMOP_RELEASES=all E2E_LEARN_WRITE=1 go test -count=1 -run 'TestPromOperatorWebhook/.*/learn$' ./apiserver/
E2E_EVENTING_RELEASES=all E2E_LEARN_WRITE=1 go test -count=1 -run 'TestEventingWebhook/.*/learn$' ./apiserver/
E2E_KRUISE_RELEASES=all E2E_LEARN_WRITE=1 go test -count=1 -run 'TestOpenKruiseWebhook/.*/learn$' ./apiserver/
E2E_CAPI_RELEASES=all E2E_LEARN_WRITE=1 go test -count=1 -run 'TestClusterAPIWebhook/.*/learn$' ./apiserver/
E2E_KSERVE_RELEASES=all E2E_LEARN_WRITE=1 go test -count=1 -run 'TestKServeWebhook/.*/learn$' ./apiserver/
# One subtest per build of test/e2e/webhook-knative (go.mod, go.v*.mod:
# knativeReleases).
E2E_KNATIVE_RELEASES=all E2E_LEARN_WRITE=1 exec go test -count=1 -run 'TestKnativeWebhook/.*/learn$' ./apiserver/
