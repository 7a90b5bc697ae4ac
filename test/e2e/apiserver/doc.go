// Package apiserver proves cmp-defaults against the real pieces: a
// kube-apiserver (k8s.io/kubernetes v1.37, apiextensions included) started in
// the test process on an embedded etcd, objects synced the way Argo CD syncs
// them (gitops-engine's in-process kubectl apply, field manager
// argocd-controller, client-side and server-side apply), and Argo CD's own diff
// code (gitops-engine pkg/diff, options built as util/argo/diff.StateDiffs
// builds them) in every diff mode Argo CD uses: the three-way diff of a
// client-side-applied app, the structured-merge diff that ServerSideApply=true
// turns on, and Server-Side Diff with either sync strategy.
//
// Each scenario syncs the objects as written into two apps (client-side and
// server-side apply) and the objects filled by the cmp-defaults binary into
// two more, in their own namespaces, then checks:
//
//   - without cmp-defaults only the structured-merge diff shows drift, exactly
//     where the server adds a default inside an item of an atomic list (or
//     replaces an explicit null with a default); an associative list item
//     whose key only a default fills is a ComparisonError there;
//   - with cmp-defaults every mode is Synced;
//   - the filled object equals what the server stores for the object as
//     written and for the filled object (metadata and status aside), which is
//     what catches a wrong default value in a profile.
//
// Scenarios: a CRD written for the suite (defaults at top level, in atomic
// and associative list items, in map values, object defaults with nested
// defaults, nullable and non-nullable nulls); one whose served version is
// stored as another, so that the storage version's defaults arrive when the
// server reads an object back; the real CRDs of External
// Secrets Operator v2.2.0, v2.5.0, v2.7.0, v2.9.0 and cert-manager v1.19.0,
// v1.19.1 from ../shared/crds (skipped with a message when absent); the
// newest releases of Gateway API (standard and experimental channels),
// prometheus-operator, CloudNativePG, Kyverno, Envoy Gateway, the
// OpenTelemetry operator, Argo Rollouts, Crossplane, the Grafana operator,
// KEDA and Karpenter, with CRDs built in the test from the shipped profiles
// and realistic manifests (HTTPRoute, GRPCRoute, ServiceMonitor, Prometheus,
// Cluster with managed roles, ClusterPolicy, SecurityPolicy with ext-auth
// backends, BackendTrafficPolicy, OpenTelemetryCollector, Rollout with an
// AnalysisTemplate, Provider, ImageConfig, Composition, a v2
// CompositeResourceDefinition stored as v1, GrafanaDashboard,
// GrafanaAlertRuleGroup, ScaledObject, ScaledJob, NodePool); two
// corrupted user profiles that must fail; and the 'check' and 'profiles
// extract --from-cluster' commands run through a kubeconfig, errors included.
//
// Three more tests run on API servers of their own: TestLearn registers a
// real mutating webhook (HTTPS on loopback, its own CA, sideEffects None),
// learns a profile from it with 'profiles learn', fills offline with it and
// syncs (every mode Synced, identity annotation reported, same bytes twice);
// TestUpgrade syncs ExternalSecrets filled with external-secrets@2.5.0, upgrades
// the CRD to v2.7.0, switches and syncs once (every mode Synced, diff-releases
// names exactly what changed); TestServerSideDiffRequests counts the requests
// Server-Side Diff makes for one refresh of N objects (E2E_SSD_SIZES, default
// 10,100) from the server's own apiserver_request_total, against none for the
// diff of filled manifests.
//
// TestCNPGWebhook, TestTektonWebhook, TestKnativeWebhook,
// TestEventingWebhook, TestPromOperatorWebhook, TestOpenKruiseWebhook,
// TestClusterAPIWebhook and TestKServeWebhook run operators' own defaulting
// webhooks (../webhook-cnpg, ../webhook-tekton, ../webhook-knative,
// ../webhook-eventing, ../webhook-promop, ../webhook-kruise, ../webhook-capi,
// ../webhook-kserve: the release's Go module, or its source at the tag, over
// HTTPS on loopback), registered from the operator's manifest: 'profiles
// learn' on inputs written for it must give the committed scripts/learned
// file (E2E_LEARN_WRITE=1 rewrites it), and the operator's own samples,
// filled with its name alone, must be Synced in every mode and equal to what
// the server stores, except at fields the learner reports as not learnable
// and those the operator's webhookOperator lists as not filled, with the
// reason docs/webhooks.md gives.
//
// Measured on the way: kubectl's client-side apply strips explicit nulls
// before it creates an object, so a nullable field set to null in Git is
// stored with its default by a client-side-applied app (server-side apply and
// a plain create keep the null); Server-Side Diff then shows that field with
// or without cmp-defaults, which follows the API server. The suite pins it.
//
// It is a package of the test/e2e module, which shares its Kubernetes 1.37
// and etcd graph with the controller suite. Syncs and Server-Side Diff's dry
// runs use argo-cd/gitops-engine/v3's kubectl; diffs use pkg/diff of the
// older module github.com/argoproj/gitops-engine, which still has the
// structured-merge diff. The cmp-defaults binary under test is built from
// the repository root (or taken from $CMP_DEFAULTS_BIN) and run as a user
// would run it. Everything the suite writes lives in one temporary
// directory, removed at the end.
//
// Run it with:
//
//	cd test/e2e && GOTOOLCHAIN=go1.27.3 go test -count=1 -timeout 60m ./apiserver/
//
// E2E_LOGS=1 shows the API server's and etcd's logs.
package apiserver
