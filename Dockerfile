# cmp-defaults as an Argo CD Config Management Plugin sidecar of argocd-repo-server.
#
#   docker build -t ghcr.io/cmp-defaults/cmp-defaults:v0.1.0 --build-arg VERSION=v0.1.0 .
#
# The image holds one static binary (shipped profiles are embedded in it) and plugin.yaml.
# Its entrypoint, argocd-cmp-server, is not in the image: argocd-repo-server's copyutil init
# container copies it into the shared var-files volume at /var/run/argocd. Install manifests
# are in deploy/; deploy/image_test.go checks the facts below. Target: image < 60 MB.

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/cmp-defaults ./cmd/cmp-defaults

# distroless/static: CA certificates, tzdata, /etc/passwd, a world-writable /tmp; no shell.
FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/cmp-defaults /usr/local/bin/cmp-defaults
COPY plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
# Argo CD's own uid: the CMP server and repo-server share the plugins socket volume.
USER 999:999
ENTRYPOINT ["/var/run/argocd/argocd-cmp-server"]
