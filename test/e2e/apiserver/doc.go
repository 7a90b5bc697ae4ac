// Package apiserver proves cmp-defaults against the real pieces: a
// kube-apiserver (k8s.io/kubernetes v1.34, apiextensions included) started in
// the test process on an embedded etcd, objects synced the way Argo CD syncs
// them (gitops-engine's in-process kubectl apply, field manager
// argocd-controller, client-side and server-side apply), and Argo CD's own diff
// code (gitops-engine pkg/diff) in every diff mode Argo CD uses.
//
// It is a separate module because Kubernetes and Argo CD pin k8s.io modules
// through replace directives that must stay out of the main module. The
// cmp-defaults binary under test is built from the repository root and run
// as a user would run it.
//
// Run it with:
//
//	cd test/e2e/apiserver && go test -count=1 ./...
package apiserver
