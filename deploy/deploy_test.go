package deploy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// The sidecar contract (Argo CD's config-management-plugins docs, docs/install.md).
const (
	sidecarName  = "cmp-defaults"
	imageName    = "ghcr.io/cmp-defaults/cmp-defaults"
	cmpServer    = "/var/run/argocd/argocd-cmp-server"
	pluginsDir   = "/home/argocd/cmp-server/plugins"
	profilesDir  = "/home/argocd/cmp-defaults/profiles"
	profilesCM   = "cmp-defaults-profiles"
	argoInstall  = "https://raw.githubusercontent.com/argoproj/argo-cd/"
	repoServer   = "argocd-repo-server"
	argoFixture  = "testdata/argocd-v3.6.1" // a hand-written stand-in for the repo-server Deployment of Argo CD v3.6.1
	overlayDir   = "kustomize"
	componentDir = "kustomize/component"
)

// memFS copies the named directories of this package into an in-memory
// file system under /, so the overlay can be built offline and edited.
func memFS(t *testing.T, dirs ...string) filesys.FileSystem {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return fs.WriteFile("/"+filepath.ToSlash(p), data)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return fs
}

func readKustomization(t *testing.T, fs filesys.FileSystem, dir string) *types.Kustomization {
	t.Helper()
	data, err := fs.ReadFile(path.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k types.Kustomization
	if err := yaml.UnmarshalStrict(data, &k); err != nil {
		t.Fatalf("%s/kustomization.yaml: %v", dir, err)
	}
	return &k
}

func writeKustomization(t *testing.T, fs filesys.FileSystem, dir string, k *types.Kustomization) {
	t.Helper()
	data, err := yaml.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.WriteFile(path.Join(dir, "kustomization.yaml"), data); err != nil {
		t.Fatal(err)
	}
}

// build runs kustomize (krusty, as `kustomize build`) and returns the
// repo-server Deployment from the result.
func build(t *testing.T, fs filesys.FileSystem, dir string) *appsv1.Deployment {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var found *appsv1.Deployment
	for _, r := range m.Resources() {
		if r.GetKind() != "Deployment" || r.GetName() != repoServer {
			continue
		}
		data, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(data, &d); err != nil {
			t.Fatalf("built Deployment does not decode strictly: %v\n%s", err, data)
		}
		found = &d
	}
	if found == nil {
		t.Fatalf("kustomize build %s: no Deployment %s", dir, repoServer)
	}
	return found
}

// argoFixtures are the repo-server Deployments of the supported Argo CD lines.
var argoFixtures = []string{argoFixture, "testdata/argocd-v2.14.21"}

func fixture(t *testing.T, dir string) *appsv1.Deployment {
	t.Helper()
	return build(t, memFS(t, dir), "/"+dir)
}

func container(spec *corev1.PodSpec, name string) *corev1.Container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	return nil
}

func volume(spec *corev1.PodSpec, name string) *corev1.Volume {
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	return nil
}

// checkPod checks the sidecar inside a built repo-server pod and that the
// rest of the pod is what the base had. It returns the sidecar.
func checkPod(t *testing.T, base, got *appsv1.Deployment, wantImage string) *corev1.Container {
	t.Helper()
	spec := &got.Spec.Template.Spec
	bspec := &base.Spec.Template.Spec

	// The patch adds one container and two volumes; it changes nothing else.
	if len(spec.Containers) != len(bspec.Containers)+1 {
		t.Errorf("containers: %d, want %d", len(spec.Containers), len(bspec.Containers)+1)
	}
	for _, bc := range bspec.Containers {
		if c := container(spec, bc.Name); c == nil || !reflect.DeepEqual(*c, bc) {
			t.Errorf("container %s of the base was changed or lost", bc.Name)
		}
	}
	if !reflect.DeepEqual(spec.InitContainers, bspec.InitContainers) {
		t.Errorf("init containers changed; copyutil must still copy argocd-cmp-server into var-files")
	}
	for _, bv := range bspec.Volumes {
		if v := volume(spec, bv.Name); v == nil || !reflect.DeepEqual(*v, bv) {
			t.Errorf("volume %s of the base was changed or lost", bv.Name)
		}
	}
	if !reflect.DeepEqual(spec.AutomountServiceAccountToken, bspec.AutomountServiceAccountToken) {
		t.Errorf("automountServiceAccountToken changed")
	}
	names := map[string]bool{}
	for _, v := range spec.Volumes {
		if names[v.Name] {
			t.Errorf("volume %s defined twice", v.Name)
		}
		names[v.Name] = true
	}

	c := container(spec, sidecarName)
	if c == nil {
		t.Fatalf("no container %s in %s", sidecarName, repoServer)
	}
	if c.Image != wantImage {
		t.Errorf("image %q, want %q", c.Image, wantImage)
	}
	if !reflect.DeepEqual(c.Command, []string{cmpServer}) || len(c.Args) != 0 {
		t.Errorf("command %q args %q, want [%s]", c.Command, c.Args, cmpServer)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 999:
		t.Errorf("securityContext.runAsUser must be 999 (Argo CD's uid): %+v", sc)
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Errorf("securityContext.runAsNonRoot must be true")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("securityContext.allowPrivilegeEscalation must be false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("securityContext.readOnlyRootFilesystem must be true")
	case sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}):
		t.Errorf("securityContext.capabilities must drop ALL")
	}

	mounts := map[string]corev1.VolumeMount{} // by path
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
		if volume(spec, m.Name) == nil {
			t.Errorf("mount %s: no volume %s in the pod", m.MountPath, m.Name)
		}
	}
	if m := mounts["/var/run/argocd"]; m.Name != "var-files" {
		t.Errorf("/var/run/argocd must mount var-files (argocd-cmp-server), got %q", m.Name)
	}
	if m := mounts[pluginsDir]; m.Name != "plugins" {
		t.Errorf("%s must mount plugins (the socket), got %q", pluginsDir, m.Name)
	}
	tmp, ok := mounts["/tmp"]
	if !ok {
		t.Errorf("no /tmp mount (the root file system is read-only; the CMP server unpacks repos in /tmp)")
	} else {
		for _, rc := range bspec.Containers {
			for _, m := range rc.VolumeMounts {
				if m.Name == tmp.Name {
					t.Errorf("/tmp volume %s is shared with %s; the sidecar needs a private /tmp", tmp.Name, rc.Name)
				}
			}
		}
		if v := volume(spec, tmp.Name); v == nil || v.EmptyDir == nil {
			t.Errorf("/tmp must be an emptyDir")
		}
	}
	prof, ok := mounts[profilesDir]
	if !ok || !prof.ReadOnly {
		t.Errorf("profiles dir %s must be mounted read-only: %+v", profilesDir, prof)
	} else if v := volume(spec, prof.Name); v == nil || v.ConfigMap == nil || v.ConfigMap.Name != profilesCM ||
		v.ConfigMap.Optional == nil || !*v.ConfigMap.Optional {
		t.Errorf("profiles volume must be the optional ConfigMap %s: %+v", profilesCM, v)
	}
	var env string
	for _, e := range c.Env {
		if e.Name == "CMP_DEFAULTS_PROFILES_DIR" {
			env = e.Value
		}
	}
	if env != profilesDir {
		t.Errorf("CMP_DEFAULTS_PROFILES_DIR=%q, want the mount %s", env, profilesDir)
	}
	// plugin.yaml comes from the image; a mount there would hide it.
	for p := range mounts {
		if strings.HasPrefix(p, "/home/argocd/cmp-server/config") {
			t.Errorf("mount at %s hides the image's plugin.yaml", p)
		}
	}
	return c
}

// The overlay installs Argo CD's install.yaml with the sidecar. Built here
// with the repo-server Deployment fixture standing in for install.yaml.
func TestKustomizeOverlay(t *testing.T) {
	fs := memFS(t, overlayDir, argoFixture)
	k := readKustomization(t, fs, "/"+overlayDir)

	if len(k.Resources) != 1 || !strings.HasPrefix(k.Resources[0], argoInstall) ||
		!strings.HasSuffix(k.Resources[0], "/manifests/install.yaml") || strings.Contains(k.Resources[0], "/stable/") {
		t.Fatalf("resources %q: want one pinned %s<tag>/manifests/install.yaml", k.Resources, argoInstall)
	}
	if !reflect.DeepEqual(k.Components, []string{"component"}) {
		t.Errorf("components %q, want [component]", k.Components)
	}
	if k.Namespace != "argocd" {
		t.Errorf("namespace %q, want argocd", k.Namespace)
	}
	if len(k.Images) > 0 {
		t.Errorf("images %+v: the component pins the release's image; an override here would change it", k.Images)
	}

	k.Resources = []string{"../" + argoFixture} // stand-in for install.yaml
	writeKustomization(t, fs, "/"+overlayDir, k)
	got := build(t, fs, "/"+overlayDir)

	if got.Namespace != "argocd" {
		t.Errorf("namespace %q", got.Namespace)
	}
	checkPod(t, fixture(t, argoFixture), got, pinnedImage(t))
}

// The component added to someone's own Argo CD kustomization, for each
// supported Argo CD line.
func TestKustomizeComponent(t *testing.T) {
	for _, base := range argoFixtures {
		t.Run(path.Base(base), func(t *testing.T) {
			fs := memFS(t, componentDir, base)
			user := &types.Kustomization{
				TypeMeta:   types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
				Resources:  []string{"../" + base},
				Components: []string{"../" + componentDir},
			}
			writeKustomization(t, fs, "/user", user)
			checkPod(t, fixture(t, base), build(t, fs, "/user"), pinnedImage(t))

			// The image can still be overridden the usual way.
			user.Images = []types.Image{{Name: imageName, NewTag: "v9.8.7"}}
			writeKustomization(t, fs, "/user", user)
			checkPod(t, fixture(t, base), build(t, fs, "/user"), imageName+":v9.8.7")
		})
	}
}

// pinnedImage is the image the component deploys: this release's, by a
// release tag, never a placeholder.
func pinnedImage(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(componentDir, "repo-server-sidecar.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	c := container(&d.Spec.Template.Spec, sidecarName)
	if c == nil {
		t.Fatalf("component: no container %s", sidecarName)
	}
	_, tag, ok := strings.Cut(c.Image, imageName+":")
	if !ok || !releaseTag.MatchString(tag) {
		t.Fatalf("component image %q: want %s:vX.Y.Z, the release this file belongs to", c.Image, imageName)
	}
	return c.Image
}

var releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// TestReleasePin runs in the release workflow with the tag being released:
// deploy/ must deploy that very image.
func TestReleasePin(t *testing.T) {
	tag := os.Getenv("RELEASE_TAG")
	if tag == "" {
		t.Skip("RELEASE_TAG not set (the release workflow sets it)")
	}
	if got := pinnedImage(t); got != imageName+":"+tag {
		t.Errorf("deploy/ pins %s, but the release is %s: set the image in deploy/kustomize/component, deploy/helm/values.yaml and the docs' VERSION to %s before tagging", got, tag, tag)
	}
}

// The install commands name the pinned release, so that following them
// literally installs a published image; no placeholder is left.
func TestInstallDocsPin(t *testing.T) {
	_, tag, _ := strings.Cut(pinnedImage(t), ":")
	refs := regexp.MustCompile("\\?ref=([^\"\\s)\\]`]+)|VERSION=(\\S+)|cmp-defaults/cmp-defaults/(v[^/]+)/|cmp-defaults:(v[0-9A-Za-z.-]*[0-9A-Za-z])")
	for _, f := range []string{"../README.md", "../docs/install.md", "kustomize/kustomization.yaml", "kustomize/component/kustomization.yaml", "helm/values.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range refs.FindAllStringSubmatch(string(data), -1) {
			got := m[1] + m[2] + m[3] + m[4]
			if got == "${VERSION}" || got == "$VERSION" {
				continue
			}
			n++
			if got != tag {
				t.Errorf("%s: %q names %s, but deploy/ pins %s", f, m[0], got, tag)
			}
		}
		if n == 0 {
			t.Errorf("%s names no release (want %s)", f, tag)
		}
		for _, ph := range []string{"<tag>", ":TAG", "newTag: TAG"} {
			if strings.Contains(string(data), ph) {
				t.Errorf("%s still has the placeholder %q", f, ph)
			}
		}
	}
}

type helmValues struct {
	Configs struct {
		Params map[string]any `json:"params"`
	} `json:"configs"`
	RepoServer struct {
		ExtraContainers []corev1.Container `json:"extraContainers"`
		Volumes         []corev1.Volume    `json:"volumes"`
	} `json:"repoServer"`
}

// deploy/helm/values.yaml for the argo-cd chart carries the same sidecar and
// volumes as the Kustomize component.
func TestHelmValues(t *testing.T) {
	data, err := os.ReadFile("helm/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The chart renders extraContainers through tpl.
	if strings.Contains(string(data), "{{") {
		t.Errorf("helm/values.yaml contains {{, which the chart's tpl would evaluate")
	}
	var v helmValues
	if err := yaml.UnmarshalStrict(data, &v); err != nil {
		t.Fatalf("helm/values.yaml: %v", err)
	}
	if len(v.RepoServer.ExtraContainers) != 1 {
		t.Fatalf("repoServer.extraContainers: %d containers, want 1", len(v.RepoServer.ExtraContainers))
	}
	hc := v.RepoServer.ExtraContainers[0]

	// The Kustomize result: the same container, the same pinned image.
	fs := memFS(t, componentDir, argoFixture)
	writeKustomization(t, fs, "/user", &types.Kustomization{
		Resources:  []string{"../" + argoFixture},
		Components: []string{"../" + componentDir},
	})
	base := fixture(t, argoFixture)
	built := build(t, fs, "/user")
	kc := checkPod(t, base, built, pinnedImage(t))

	if !reflect.DeepEqual(hc, *kc) {
		h, _ := yaml.Marshal(hc)
		k, _ := yaml.Marshal(kc)
		t.Errorf("helm/values.yaml container differs from the Kustomize sidecar:\n--- helm\n%s--- kustomize\n%s", h, k)
	}

	// Volumes: exactly the ones the patch adds; the chart defines var-files and plugins.
	var added []corev1.Volume
	for _, vol := range built.Spec.Template.Spec.Volumes {
		if volume(&base.Spec.Template.Spec, vol.Name) == nil {
			added = append(added, vol)
		}
	}
	if !reflect.DeepEqual(v.RepoServer.Volumes, added) {
		t.Errorf("repoServer.volumes %+v, want the component's %+v", v.RepoServer.Volumes, added)
	}
	for _, vol := range v.RepoServer.Volumes {
		if vol.Name == "var-files" || vol.Name == "plugins" || vol.Name == "tmp" {
			t.Errorf("repoServer.volumes redefines %s, which the chart already has", vol.Name)
		}
	}
}

// The shipped values hold together: the sidecar's memory limit holds the CMP
// server and as many runs of the per-run budget (supervisor and worker
// together) as the repo-server starts at once, in both install paths.
func TestMemoryBudgetFits(t *testing.T) {
	const cmpServerMiB = 64
	check := func(where string, c *corev1.Container, parallelism string) {
		t.Helper()
		p, err := strconv.Atoi(parallelism)
		if err != nil || p <= 0 {
			t.Errorf("%s: reposerver.parallelism.limit %q: want a positive number (0 or unset is unlimited, and no limit holds that)", where, parallelism)
			return
		}
		budget := int64(768 << 20) // the binary's default
		for _, e := range c.Env {
			if e.Name == "CMP_DEFAULTS_MAX_MEMORY_BYTES" {
				if budget, err = strconv.ParseInt(e.Value, 10, 64); err != nil {
					t.Fatalf("%s: CMP_DEFAULTS_MAX_MEMORY_BYTES %q", where, e.Value)
				}
			}
		}
		limit := c.Resources.Limits.Memory().Value()
		if need := int64(cmpServerMiB<<20) + int64(p)*budget; limit < need {
			t.Errorf("%s: memory limit %d MiB < %d MiB for the CMP server + %d runs × %d MiB", where, limit>>20, need>>20, p, budget>>20)
		}
	}

	fs := memFS(t, overlayDir, argoFixture)
	k := readKustomization(t, fs, "/"+overlayDir)
	k.Resources = []string{"../" + argoFixture}
	writeKustomization(t, fs, "/"+overlayDir, k)
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/"+overlayDir)
	if err != nil {
		t.Fatal(err)
	}
	parallelism := ""
	for _, r := range m.Resources() {
		if r.GetKind() == "ConfigMap" && r.GetName() == "argocd-cmd-params-cm" {
			data := r.GetDataMap()
			parallelism = data["reposerver.parallelism.limit"]
		}
	}
	check("deploy/kustomize", container(&build(t, fs, "/"+overlayDir).Spec.Template.Spec, sidecarName), parallelism)

	data, err := os.ReadFile("helm/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v helmValues
	if err := yaml.UnmarshalStrict(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.RepoServer.ExtraContainers) != 1 {
		t.Fatal("helm/values.yaml: want one extra container")
	}
	check("deploy/helm/values.yaml", &v.RepoServer.ExtraContainers[0], fmt.Sprint(v.Configs.Params["reposerver.parallelism.limit"]))
}
