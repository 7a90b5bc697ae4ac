package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
)

// Helm's media types of a chart in an OCI registry: the chart archive's
// layer (and its legacy name).
var chartLayerTypes = []string{"application/vnd.cncf.helm.chart.content.v1.tar+gzip", "application/tar+gzip"}

// ociChart is chart for an OCI registry: repoURL/chart is the repository,
// targetRevision a tag, or a constraint on the semver tags (newest match),
// as Argo CD reads them. Helm's registry client is not used: it takes no
// context and reads the caller's registry credentials.
func (rc *remoteCharts) ociChart(ctx context.Context, src *argocd.Source) (dir, version string, err error) {
	name := strings.TrimSuffix(strings.TrimPrefix(src.RepoURL, "oci://"), "/") + "/" + src.Chart
	r, err := remote.NewRepository(name)
	if err != nil {
		return "", "", fmt.Errorf("%s is not an OCI repository name: %w; check repoURL and %s.chart", name, err, src.Field)
	}
	// Anonymous (no Credential), through the proxies and bounds of rc.client.
	r.Client = &auth.Client{Client: rc.client, Header: http.Header{"User-Agent": {"cmp-defaults-preview"}}}
	// Loopback registries speak plain HTTP, as docker takes them.
	r.PlainHTTP = isLoopback(r.Reference.Registry)
	version = src.TargetRevision
	if _, err := semver.NewVersion(version); err != nil {
		if version, err = newestTag(ctx, r, version); err != nil {
			return "", "", ociError(err)
		}
	}
	// Helm tags a version's + as _.
	tag := strings.ReplaceAll(version, "+", "_")
	dir, err = rc.archive(cacheKey("oci", name, tag), func([]byte) bool { return true }, func() ([]byte, error) {
		b, err := pullChart(ctx, r, tag)
		if errors.Is(err, errdef.ErrNotFound) {
			return nil, fmt.Errorf("%w; check %s.chart and %s.targetRevision", err, src.Field, src.Field)
		}
		return b, ociError(err)
	})
	return dir, version, err
}

// newestTag is the newest semver tag of r matching the constraint c.
func newestTag(ctx context.Context, r *remote.Repository, c string) (string, error) {
	constraint, err := semver.NewConstraint(c)
	if err != nil {
		return "", fmt.Errorf("targetRevision %q is neither a version nor a semver constraint: %w", c, err)
	}
	var newest *semver.Version
	err = r.Tags(ctx, "", func(tags []string) error {
		for _, t := range tags {
			v, err := semver.StrictNewVersion(strings.ReplaceAll(t, "_", "+"))
			if err == nil && constraint.Check(v) && (newest == nil || v.GreaterThan(newest)) {
				newest = v
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("listing the tags of %s: %w", r.Reference, err)
	}
	if newest == nil {
		return "", fmt.Errorf("no tag of %s matches %q", r.Reference, c)
	}
	return newest.Original(), nil
}

// pullChart reads the chart archive of r:tag: its manifest, bounded by
// oras, then the chart layer, at most maxArchiveBytes, digest checked.
func pullChart(ctx context.Context, r *remote.Repository, tag string) ([]byte, error) {
	desc, rd, err := r.FetchReference(ctx, tag)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest of %s:%s: %w", r.Reference, tag, err)
	}
	defer rd.Close()
	b, err := content.ReadAll(rd, desc)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest of %s:%s: %w", r.Reference, tag, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("the manifest of %s:%s: %w", r.Reference, tag, err)
	}
	for _, l := range m.Layers {
		if !slices.Contains(chartLayerTypes, l.MediaType) {
			continue
		}
		if l.Size > maxArchiveBytes {
			return nil, fmt.Errorf("the chart of %s:%s has %d bytes, more than the %d MiB allowed", r.Reference, tag, l.Size, maxArchiveBytes>>20)
		}
		b, err := content.FetchAll(ctx, r.Blobs(), l)
		if err != nil {
			return nil, fmt.Errorf("downloading the chart of %s:%s: %w", r.Reference, tag, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s:%s is not a Helm chart: its manifest has no layer of type %s", r.Reference, tag, chartLayerTypes[0])
}

// ociError adds to a registry's refusal that preview sends no credentials.
func ociError(err error) error {
	var e *errcode.ErrorResponse
	if errors.As(err, &e) && (e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden) {
		return fmt.Errorf("%w: %s", err, credentialsWanted("registry", "registries"))
	}
	return err
}

// isLoopback says whether host (with a port or not) is a loopback address
// or localhost.
func isLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}
