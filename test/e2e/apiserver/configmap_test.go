package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/cmd/create"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubernetes/pkg/volume/configmap"
	volumeutil "k8s.io/kubernetes/pkg/volume/util"
)

// TestProfilesConfigMap follows docs/install.md's user profiles steps with
// the real parts: 'profiles extract --write DIR', kubectl's own 'create
// configmap --from-file=DIR' against the API server, and the kubelet's own
// ConfigMap volume writer (keys linked through ..data into a timestamped
// directory). The sidecar's binary reads the mounted directory, and sees an
// update the kubelet swaps in.
func TestProfilesConfigMap(t *testing.T) {
	s := startServer(t)
	crdFile := filepath.Join("testdata", "widgets", "crd.yaml")
	dir := filepath.Join(t.TempDir(), "my-profiles")
	for _, v := range []string{"1.0.0", "1.1.0"} {
		if r := runBinary(t, "", "profiles", "extract", "--operator", "widgets", "--version", v, "--write", dir, crdFile); r.code != 0 {
			t.Fatalf("profiles extract --write: exit %d: %s", r.code, r.stderr)
		}
	}

	// kubectl -n default create configmap cmp-defaults-profiles --from-file=DIR
	kubeconfig, ns := s.kubeconfig, "default"
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Namespace = &kubeconfig, &ns
	f := cmdutil.NewFactory(flags)
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	cmd := create.NewCmdCreateConfigMap(f, streams)
	var fatal string
	cmdutil.BehaviorOnFatal(func(msg string, _ int) { fatal = msg })
	defer cmdutil.DefaultBehaviorOnFatal()
	cmd.SetArgs([]string{"cmp-defaults-profiles", "--from-file=" + dir})
	cmd.SetOut(out)
	if err := cmd.Execute(); err != nil || fatal != "" {
		t.Fatalf("kubectl create configmap --from-file=%s: %v %s", dir, err, fatal)
	}

	cs, err := kubernetes.NewForConfig(s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "cmp-defaults-profiles", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Data) != 2 {
		t.Fatalf("ConfigMap has %d keys, want the 2 profiles: %v", len(cm.Data), keys(cm))
	}

	// The kubelet's ConfigMap volume, as the sidecar's profiles mount.
	mnt := filepath.Join(t.TempDir(), "profiles")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mount := func(cm *corev1.ConfigMap) {
		t.Helper()
		mode := corev1.ConfigMapVolumeSourceDefaultMode // the API's default for defaultMode
		// No defaultUser: the sidecar's volume sets none.
		payload, err := configmap.MakePayload(nil, cm, &mode, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		w, err := volumeutil.NewAtomicWriter(mnt, "cmp-defaults-profiles")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(payload, nil); err != nil {
			t.Fatal(err)
		}
	}
	mount(cm)
	if _, err := os.Lstat(filepath.Join(mnt, "..data")); err != nil {
		t.Fatalf("the kubelet's layout has no ..data link: %v", err)
	}

	list := runBinary(t, "", "profiles", "list", "--profiles-dir", mnt)
	if list.code != 0 || !strings.Contains(list.stdout, "widgets") || strings.Contains(list.stdout+list.stderr, "..data") || strings.Contains(list.stdout+list.stderr, "/..") {
		t.Fatalf("profiles list of the mounted ConfigMap: exit %d\n%s\n%s", list.code, list.stdout, list.stderr)
	}
	if lint := runBinary(t, "", "profiles", "lint", mnt); lint.code != 0 {
		t.Fatalf("profiles lint of the mounted ConfigMap: %s", lint.stderr)
	}
	if r := runBinary(t, "", "profiles", "show", "widgets", "--profiles-dir", mnt); r.code != 0 || !strings.Contains(r.stdout, "widgets_v1.1.0.yaml") {
		t.Errorf("profiles show widgets: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// An update: the kubelet writes a new timestamped directory and swaps ..data.
	for k := range cm.Data {
		if strings.Contains(k, "1.1.0") {
			delete(cm.Data, k)
		}
	}
	mount(cm)
	if r := runBinary(t, "", "profiles", "show", "widgets", "--profiles-dir", mnt); r.code != 0 || strings.Contains(r.stdout, "widgets_v1.1.0.yaml") || !strings.Contains(r.stdout, "widgets_v1.0.0.yaml") {
		t.Errorf("after the update: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func keys(cm *corev1.ConfigMap) []string {
	var out []string
	for k := range cm.Data {
		out = append(out, k)
	}
	return out
}
