package action

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// overlays is where preview writes the kustomizations that apply an
// Application's kustomize settings, inside the revision's tree (a copy of
// preview's own): the renderer reads nothing outside the repository root.
const overlays = ".cmp-defaults-kustomize"

// kustomizeOverlay applies spec.source.kustomize of a Kustomize source the
// way Argo CD's 'kustomize edit' calls do, as a kustomization over the
// source's (names, namespace, images, labels, annotations, replicas,
// patches, components), and returns its directory; a source that is not a
// kustomization is returned as it is. Settings it cannot apply are errors.
func kustomizeOverlay(root, dir string, src *argocd.Source, env map[string]string) (string, error) {
	if kind, err := render.Detect(dir); err != nil || kind != render.KindKustomize {
		return dir, err
	}
	var spec struct {
		NamePrefix             string            `json:"namePrefix"`
		NameSuffix             string            `json:"nameSuffix"`
		Namespace              string            `json:"namespace"`
		Images                 []string          `json:"images"`
		CommonLabels           map[string]string `json:"commonLabels"`
		CommonAnnotations      map[string]string `json:"commonAnnotations"`
		LabelWithoutSelector   bool              `json:"labelWithoutSelector"`
		LabelIncludeTemplates  bool              `json:"labelIncludeTemplates"`
		ForceCommonLabels      bool              `json:"forceCommonLabels"`
		ForceCommonAnnotations bool              `json:"forceCommonAnnotations"`
		Replicas               []types.Replica   `json:"replicas"`
		Patches                []types.Patch     `json:"patches"`
		Components             []string          `json:"components"`
	}
	b, err := yaml.Marshal(src.KustomizeSpec)
	if err == nil {
		err = yaml.UnmarshalStrict(b, &spec)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %s.kustomize: %v (preview applies namePrefix, nameSuffix, namespace, images, commonLabels, commonAnnotations, replicas, patches, components)", src.Where, src.Field, err)
	}
	sum := sha256.Sum256(append([]byte(dir+"\n"), b...))
	out := filepath.Join(root, overlays, hex.EncodeToString(sum[:8]))
	base, err := filepath.Rel(out, dir)
	if err != nil {
		return "", err
	}
	k := types.Kustomization{TypeMeta: types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
		Resources: []string{filepath.ToSlash(base)}, NamePrefix: spec.NamePrefix, NameSuffix: spec.NameSuffix,
		Namespace: spec.Namespace, Replicas: spec.Replicas, Patches: spec.Patches}
	for _, img := range spec.Images {
		k.Images = append(k.Images, kustomizeImage(argocd.Envsubst(img, env)))
	}
	if len(spec.CommonLabels) > 0 {
		k.Labels = append(k.Labels, types.Label{Pairs: spec.CommonLabels, IncludeSelectors: !spec.LabelWithoutSelector,
			IncludeTemplates: spec.LabelWithoutSelector && spec.LabelIncludeTemplates})
	}
	k.CommonAnnotations = spec.CommonAnnotations
	for _, c := range spec.Components {
		rel, err := filepath.Rel(out, filepath.Join(dir, filepath.FromSlash(c)))
		if err != nil {
			return "", err
		}
		k.Components = append(k.Components, filepath.ToSlash(rel))
	}
	for i := range k.Patches {
		if p := k.Patches[i].Path; p != "" {
			rel, err := filepath.Rel(out, filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return "", err
			}
			k.Patches[i].Path = filepath.ToSlash(rel)
		}
	}
	y, err := yaml.Marshal(k)
	if err != nil {
		return "", err
	}
	// Two Applications with the same source and settings render at once.
	if err := writeAtomic(out, filepath.Join(out, "kustomization.yaml"), y); err != nil {
		return "", fmt.Errorf("writing the kustomization of %s.kustomize: %w", src.Field, err)
	}
	return out, nil
}

// kustomizeImage reads an image override as 'kustomize edit set image'
// does: NAME=NEWNAME[:TAG|@DIGEST], or NAME[:TAG|@DIGEST].
func kustomizeImage(s string) types.Image {
	name, to, renamed := strings.Cut(s, "=")
	if !renamed {
		to = s
	}
	var img types.Image
	ref, digest, hasDigest := strings.Cut(to, "@")
	tag := ""
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref, tag = ref[:i], ref[i+1:]
	}
	if renamed {
		img.Name, img.NewName = name, ref
	} else {
		img.Name = ref
	}
	img.NewTag = tag
	if hasDigest {
		img.Digest, img.NewTag = digest, ""
	}
	return img
}
