// Package deploy holds no code: its tests check the install manifests next to it
// (kustomize/, helm/values.yaml): the sidecar they add, the release image they pin,
// and that the install docs name that release. The image itself is built and
// tested by scripts/image.
//
//	go test ./deploy
package deploy
