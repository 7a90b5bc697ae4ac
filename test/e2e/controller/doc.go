// Package controller proves cmp-defaults against Argo CD itself: Argo CD
// v3.6.1's application controller (package controller) and repo-server
// (package reposerver), with cmp-defaults behind the real argocd-cmp-server
// (the repository's plugin.yaml, the plugins socket directory), Redis
// in-process (miniredis), Argo CD's CRDs, ConfigMaps and Secret as an install
// creates them, and a real kube-apiserver (k8s.io/kubernetes v1.37.0, the
// release Argo CD v3.6.1 pins) on an embedded etcd, all in the test process.
// The Applications' source is a Git repository on disk, served through a
// file:// URL, holding the bundled examples (plain, Helm, Kustomize) and one
// app per operator with realistic objects (Gateway API, prometheus-operator,
// Kyverno; see operatorApps for those left out and why). The operators' CRDs are built in
// the test from the shipped profiles (never copied from upstream).
//
// Every scenario asserts on what Argo CD wrote into the Application, read
// from the API server: status.sync.status, status.resources[].status,
// status.operationState, status.conditions and status.history (one entry
// per sync operation):
//
//   - TestArgoCDControllerSelfHeal: plugin cmp-defaults, ServerSideApply=true,
//     automated sync with selfHeal, under Server-Side Diff (what v3.6 turns
//     on for ServerSideApply=true) and under the client-side diff
//     (ServerSideDiff=false): Synced after the first sync, still Synced after
//     5 hard refreshes, exactly one sync operation;
//   - TestArgoCDControllerControl: the same objects without the plugin, under
//     the client-side diff: every resource Argo CD reports OutOfSync is one
//     cmp-defaults fills, and an ExternalSecret with fields set to null (as
//     Helm renders unset values) is OutOfSync and stays so under automated
//     sync with selfHeal. Argo CD v3.6 hides the defaults a manifest leaves out, even
//     inside list items (its client-side diff drops live fields the manifest
//     does not name; ServerSideApply=true means Server-Side Diff): the
//     operators' apps are Synced without the plugin too;
//   - TestArgoCDControllerServerSideDiff: Server-Side Diff with client-side
//     apply is Synced through 5 hard refreshes with one sync;
//   - TestArgoCDControllerOperatorUpgrade: on a second cluster registered like
//     'argocd cluster add' does, External Secrets Operator's CRD goes from
//     v2.5.0 to v2.7.0 and the Application's operators parameter is
//     switched: it converges to Synced with one more sync;
//   - TestArgoCDControllerFailClosed: a commit with an invalid object gives
//     the Application a ComparisonError carrying cmp-defaults' message, no
//     sync runs and nothing is pruned;
//   - TestArgoCDControllerWebhookOperator: an operator's real mutating
//     webhook in the admission chain: CloudNativePG v1.30.0 and Cluster API
//     v1.14.0 (controller-runtime, test/e2e/webhook-cnpg and webhook-capi)
//     and Tekton Pipelines v1.15.0 (knative.dev/pkg, test/e2e/webhook-tekton),
//     built and started by the test: the plugin's objects are Synced after
//     one sync under both diffs and equal what the server stores.
//
// BenchmarkArgoCDControllerRefresh measures a hard refresh with and without
// the plugin and under Server-Side Diff, from the controller's own metrics
// (argocd_app_reconcile, argocd_app_k8s_request_total).
//
// It is a package of the module test/e2e, with cmp-v3: Argo CD v3.6.1 on
// Kubernetes 1.37, whose k8s.io versions that go.mod pins through replace
// directives. It needs Go 1.27 like Argo CD v3.6:
//
//	cd test/e2e/controller && GOTOOLCHAIN=go1.27.3 go test -count=1 ./...
//	cd test/e2e/controller && GOTOOLCHAIN=go1.27.3 go test -run '^$' -bench . -benchtime 10x ./...
//
// E2E_LOGS=1 shows the logs of the API server, etcd and Argo CD.
package controller
