// Package deploy holds no code: its tests check the install manifests next to it
// (kustomize/, helm/values.yaml) and the Dockerfile at the repository root.
//
//	go test ./deploy                 # manifests and Dockerfile (fast)
//	go test ./deploy -run Binary -v  # also builds the image's static binary and reports its size
package deploy
