package controller

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/cmpserver"
	"github.com/argoproj/argo-cd/v3/cmpserver/plugin"
	commitclient "github.com/argoproj/argo-cd/v3/commitserver/apiclient"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/controller"
	"github.com/argoproj/argo-cd/v3/controller/sharding"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	appclientset "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"github.com/argoproj/argo-cd/v3/reposerver"
	repoapiclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	reposervercache "github.com/argoproj/argo-cd/v3/reposerver/cache"
	repometrics "github.com/argoproj/argo-cd/v3/reposerver/metrics"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	"github.com/argoproj/argo-cd/v3/util/askpass"
	cacheutil "github.com/argoproj/argo-cd/v3/util/cache"
	appstatecache "github.com/argoproj/argo-cd/v3/util/cache/appstate"
	kubeutil "github.com/argoproj/argo-cd/v3/util/kube"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"github.com/argoproj/argo-cd/v3/util/tls"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/servers"
)

const (
	argoCDVersion = "v3.6.1"
	argoNS        = "argocd"
	inCluster     = "https://kubernetes.default.svc"
)

// argoCD is Argo CD's control plane running in this process.
type argoCD struct {
	apps       appclientset.Interface // the test's client
	metricsURL string                 // the application controller's /metrics
	repoAddr   string                 // the repo-server's gRPC address
}

// startArgoCD installs Argo CD into s (CRDs, ConfigMaps, Secret and the
// default project from Argo CD's own manifests) and runs the cmp-server with
// cmp-defaults, the repo-server and the application controller, with the
// settings of their command-line defaults unless said otherwise. The
// destination "in-cluster" is s, reached through $KUBECONFIG as
// ARGOCD_FAKE_IN_CLUSTER provides for running outside a pod.
func startArgoCD(t tb, s *kubeServer) *argoCD {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	moduleDir := argoModuleDir(t)
	install(t, s, moduleDir)

	for k, v := range map[string]string{
		"ARGOCD_FAKE_IN_CLUSTER":    "true",
		"KUBECONFIG":                s.kubeconfig,
		"ARGOCD_PLUGINSOCKFILEPATH": filepath.Join(tmpRoot, "s"),
		"ARGOCD_CMP_WORKDIR":        filepath.Join(tmpRoot, "w"),
		"ARGOCD_GNUPGHOME":          filepath.Join(tmpRoot, "gpg"),
		"ARGOCD_GPG_ENABLED":        "false",
	} {
		t.Setenv(k, v)
	}
	if err := os.MkdirAll(os.Getenv("ARGOCD_PLUGINSOCKFILEPATH"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The repo-server runs the scripts its image ships in /usr/local/bin.
	bin := filepath.Join(tmpRoot, "argocd-bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"git-verify-wrapper.sh", "gpg-wrapper.sh"} {
		data, err := os.ReadFile(filepath.Join(moduleDir, "hack", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, f), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	startCMPServer(t)

	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		t.Fatalf("miniredis: %v", err)
	}
	t.Cleanup(mr.Close)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	redisCache := cacheutil.NewRedisCache(rdb, 24*time.Hour, cacheutil.RedisCompressionGZip)

	a := &argoCD{repoAddr: startRepoServer(t, redisCache)}

	cfg := rest.CopyConfig(s.cfg)
	if err := v1alpha1.SetK8SConfigDefaults(cfg); err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = common.DefaultApplicationControllerName + "/" + argoCDVersion
	// JSON, as against a cluster: kube-apiserver v1.37.0's custom resource
	// handler panics decoding an update in another content type.
	cfg.ContentType = "application/json"
	cfg.AcceptContentTypes = "application/json"
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctrlApps, err := appclientset.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.apps, err = appclientset.NewForConfig(s.testCfg); err != nil {
		t.Fatal(err)
	}
	settingsMgr := settings.NewSettingsManager(ctx, kube, argoNS)
	clusterSharding, err := sharding.GetClusterSharding(kube, settingsMgr, common.DefaultShardingAlgorithm, false)
	if err != nil {
		t.Fatal(err)
	}
	appCache := appstatecache.NewCache(cacheutil.NewCache(cacheutil.NewTwoLevelClient(redisCache, 10*time.Minute)), time.Hour)
	metricsPort := servers.FreePort(t)
	a.metricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort)
	ctrl, err := controller.NewApplicationController(
		argoNS, settingsMgr, kube, ctrlApps,
		repoapiclient.NewRepoServerClientset(a.repoAddr, 60, tls.Configuration{DisableTLS: true}),
		commitclient.NewCommitServerClientset("127.0.0.1:1"), // no hydrator: never called
		appCache,
		kubeutil.NewKubectl(),
		// Periodic resync off: the scenarios refresh explicitly (hard refresh
		// annotation) and live changes reach the controller through its watches.
		100*365*24*time.Hour, 0, 0,
		0, &wait.Backoff{Duration: 2 * time.Second, Factor: 3, Cap: 300 * time.Second}, // --self-heal-* defaults
		0, 180*time.Second,
		metricsPort, 0, nil, nil, nil,
		20, false, clusterSharding, nil, nil,
		false, // --server-side-diff-enabled: per app, by annotation or ServerSideApply=true
		false, normalizers.IgnoreNormalizerOpts{JQExecutionTimeout: time.Second}, nil, false,
	)
	if err != nil {
		t.Fatalf("application controller: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctrl.Run(ctx, 4, 2, 1)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	})
	waitHTTP(t, a.metricsURL)
	return a
}

// argoModuleDir is github.com/argoproj/argo-cd/v3 in the module cache (its
// manifests are the install), for the version this test binary is built with.
func argoModuleDir(t tb) string {
	t.Helper()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	version := ""
	for _, m := range bi.Deps {
		if m.Path == "github.com/argoproj/argo-cd/v3" {
			version = m.Version
		}
	}
	if version == "" {
		t.Fatal("github.com/argoproj/argo-cd/v3 is not a dependency of the test binary")
	}
	dir := filepath.Join(modCache, "github.com", "argoproj", "argo-cd", "v3@"+version)
	if _, err := os.Stat(filepath.Join(dir, "manifests", "crds")); err != nil {
		t.Fatalf("Argo CD's manifests: %v (run go mod download in test/e2e)", err)
	}
	return dir
}

// install creates what Argo CD's install manifests create in namespace
// argocd: the Application and AppProject CRDs, argocd-cm and the other
// ConfigMaps, argocd-secret. It also does what argocd-server does at its
// first start, which this suite does not run: a server.secretkey in
// argocd-secret and the "default" AppProject.
func install(t tb, s *kubeServer, moduleDir string) {
	t.Helper()
	ctx := context.Background()
	var crds []*apiextv1.CustomResourceDefinition
	for _, f := range []string{"application-crd.yaml", "appproject-crd.yaml"} {
		for _, o := range readObjects(t, filepath.Join(moduleDir, "manifests", "crds", f)) {
			crd := &apiextv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, crd); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			crds = append(crds, crd)
		}
	}
	s.applyCRDs(t, crds)
	s.ensureNamespace(t, argoNS)

	configDir := filepath.Join(moduleDir, "manifests", "base", "config")
	entries, err := os.ReadDir(configDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "kustomization.yaml" || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		for _, o := range readObjects(t, filepath.Join(configDir, e.Name())) {
			switch o.GetKind() {
			case "ConfigMap":
				var cm corev1.ConfigMap
				fromUnstructured(t, o, &cm)
				if _, err := s.kube.CoreV1().ConfigMaps(argoNS).Create(ctx, &cm, metav1.CreateOptions{}); err != nil {
					t.Fatalf("%s: %v", e.Name(), err)
				}
			case "Secret":
				var sec corev1.Secret
				fromUnstructured(t, o, &sec)
				if sec.Name == common.ArgoCDSecretName {
					key := make([]byte, 32)
					_, _ = rand.Read(key)
					sec.StringData = map[string]string{"server.secretkey": hex.EncodeToString(key)}
				}
				if _, err := s.kube.CoreV1().Secrets(argoNS).Create(ctx, &sec, metav1.CreateOptions{}); err != nil {
					t.Fatalf("%s: %v", e.Name(), err)
				}
			default:
				t.Fatalf("%s: unexpected %s", e.Name(), o.GetKind())
			}
		}
	}
	var proj v1alpha1.AppProject
	if err := yaml.UnmarshalStrict([]byte(`metadata: {name: default, namespace: argocd}
spec:
  sourceRepos: ['*']
  destinations: [{server: '*', namespace: '*'}]
  clusterResourceWhitelist: [{group: '*', kind: '*'}]
`), &proj); err != nil {
		t.Fatal(err)
	}
	apps, err := appclientset.NewForConfig(s.testCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apps.ArgoprojV1alpha1().AppProjects(argoNS).Create(ctx, &proj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("AppProject default: %v", err)
	}
}

// startCMPServer runs argocd-cmp-server's server in this process as
// cmd/argocd-cmp-server does, with the repository's plugin.yaml.
func startCMPServer(t tb) {
	t.Helper()
	cfg, err := plugin.ReadPluginConfig(repoRoot())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := cmpserver.NewServer(plugin.CMPServerInitConstants{PluginConfig: *cfg})
	if err != nil {
		t.Fatal(err)
	}
	g, err := srv.CreateGRPC()
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("unix", cfg.Address())
	if err != nil {
		t.Fatal(err)
	}
	serve(t, g, lis)
}

// startRepoServer runs argocd-repo-server's gRPC server in this process with
// its command-line defaults (plaintext, as --disable-tls) and returns its
// address.
func startRepoServer(t tb, redisCache cacheutil.CacheClient) string {
	t.Helper()
	q := func(s string) int64 { r := resource.MustParse(s); return r.Value() }
	srv, err := reposerver.NewServer(repometrics.NewMetricsServer(),
		reposervercache.NewCache(cacheutil.NewCache(redisCache), 24*time.Hour, 3*time.Minute, 10*time.Second),
		nil,
		repository.RepoServerInitConstants{
			PauseGenerationAfterFailedGenerationAttempts: 3,
			PauseGenerationOnFailureForMinutes:           60,
			MaxCombinedDirectoryManifestsSize:            resource.MustParse("10M"),
			StreamedManifestMaxTarSize:                   q("100M"),
			StreamedManifestMaxExtractedSize:             q("1G"),
			HelmManifestMaxExtractedSize:                 q("1G"),
			HelmRegistryMaxIndexSize:                     q("1G"),
			OCIManifestMaxExtractedSize:                  q("1G"),
			EnableBuiltinGitConfig:                       true,
			HelmChartCacheExpiration:                     24 * time.Hour,
		},
		askpass.NewServer(filepath.Join(tmpRoot, "askpass.sock")), "", true)
	if err != nil {
		t.Fatalf("repo-server: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, srv.CreateGRPC(), lis)
	return lis.Addr().String()
}

func serve(t tb, g *grpc.Server, lis net.Listener) {
	done := make(chan error, 1)
	go func() { done <- g.Serve(lis) }()
	t.Cleanup(func() {
		g.Stop()
		<-done
	})
}

func waitHTTP(t tb, url string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		resp, err := http.Get(url)
		if err != nil {
			return false, nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
}

// readObjects decodes every YAML document of files.
func readObjects(t tb, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var m map[string]any
			if err := d.Decode(&m); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				t.Fatalf("%s: %v", f, err)
			}
			if len(m) > 0 {
				out = append(out, &unstructured.Unstructured{Object: m})
			}
		}
	}
	return out
}

func fromUnstructured(t tb, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

// argoHost is the host label of Argo CD's requests to the in-cluster API
// server in client-go's request metrics.
func argoHost() string { return strings.TrimPrefix(cluster.host, "https://") }
