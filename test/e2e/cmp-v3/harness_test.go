// Shared by test/e2e/cmp-v2 and test/e2e/cmp-v3. This file and e2e_test.go are
// the one source: cmp-v2's copies are generated from them with the argo-cd
// module path replaced ('go generate' in test/e2e/cmp-v2; its TestGenerated
// fails when they are out of date). What differs between Argo CD releases is in
// each module's argocd_test.go.
//
// The harness runs Argo CD's own CMP server (cmpserver) in-process with the
// repository's plugin.yaml and a freshly built cmp-defaults on PATH, and talks
// to it with the functions argocd-repo-server uses
// (reposerver/repository.runConfigManagementPluginSidecars and
// populatePluginAppDetails).

package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	log "github.com/sirupsen/logrus"
	"google.golang.org/protobuf/types/known/emptypb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/cmpserver"
	pluginapi "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/cmpserver/plugin"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoapi "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"

	"github.com/cmp-defaults/cmp-defaults/test/e2e/e2ekit"
)

// repoServerTimeout is argocd-repo-server's default exec timeout; the CMP
// server kills generate when the request's deadline passes.
const repoServerTimeout = 60 * time.Second

// The test environment, set up once by TestMain.
var (
	repoRoot  string // this project's checkout
	gitRepo   string // the repository sent to the CMP server (a temp dir, like repo-server's clone)
	sockDir   string // ARGOCD_PLUGINSOCKFILEPATH
	pluginCfg *plugin.PluginConfig
)

func TestMain(m *testing.M) {
	flag.Parse()
	code, err := testMain(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		code = 1
	}
	os.Exit(code)
}

func testMain(m *testing.M) (int, error) {
	var err error
	if repoRoot, err = filepath.Abs("../../.."); err != nil {
		return 0, err
	}
	// Unix socket paths are limited to ~108 bytes: keep the temp dir short
	// (t.TempDir() paths are too long).
	tmp, err := os.MkdirTemp("", "cmp")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)

	var buildLog io.Writer
	if testing.Verbose() {
		buildLog = os.Stderr
	}
	bin, err := e2ekit.CMPDefaultsBinary(filepath.Join(tmp, "bin"), repoRoot, buildLog)
	if err != nil {
		return 0, err
	}

	if gitRepo, err = makeGitRepo(filepath.Join(tmp, "repo")); err != nil {
		return 0, err
	}

	// The sidecar's environment: argocd-cmp-server runs plugin commands with
	// its own environment plus the request's.
	sockDir = filepath.Join(tmp, "s")
	for k, v := range map[string]string{
		"PATH":                      filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"ARGOCD_PLUGINSOCKFILEPATH": sockDir,
		"ARGOCD_CMP_WORKDIR":        filepath.Join(tmp, "w"), // own work dir: Init removes it
	} {
		if err := os.Setenv(k, v); err != nil {
			return 0, err
		}
	}
	// Hermetic: no cmp-defaults settings from the caller's environment.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CMP_DEFAULTS_") || strings.HasPrefix(k, "ARGOCD_ENV_") {
			os.Unsetenv(k)
		}
	}
	if err := os.MkdirAll(sockDir, 0o700); err != nil {
		return 0, err
	}

	if !testing.Verbose() {
		log.SetOutput(io.Discard)
	}
	start := time.Now()
	cfg, stop, err := startCMPServer(repoRoot)
	if err != nil {
		return 0, err
	}
	defer stop()
	pluginCfg = cfg
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "argocd-cmp-server %s serving %s (started in %s)\n", argoCDVersion, pluginCfg.Address(), time.Since(start).Round(time.Millisecond))
	}
	return m.Run(), nil
}

// makeGitRepo assembles the repository the tests send, as repo-server's
// clone would hold it: the project's examples/ and the test apps.
func makeGitRepo(dir string) (string, error) {
	for _, c := range []struct{ from, to string }{
		{filepath.Join(repoRoot, "examples"), "examples"},
		{filepath.Join(repoRoot, "test", "e2e", "testdata", "apps"), "apps"},
	} {
		if err := os.CopyFS(filepath.Join(dir, c.to), os.DirFS(c.from)); err != nil {
			return "", fmt.Errorf("copy %s: %w", c.from, err)
		}
	}
	return dir, nil
}

// startCMPServer runs argocd-cmp-server's server in this process, the way
// cmd/argocd-cmp-server does: read plugin.yaml from configDir, create the
// gRPC server (which initialises ARGOCD_CMP_WORKDIR) and serve on the
// plugin's socket in ARGOCD_PLUGINSOCKFILEPATH.
func startCMPServer(configDir string) (cfg *plugin.PluginConfig, stop func(), err error) {
	cfg, err = plugin.ReadPluginConfig(configDir)
	if err != nil {
		return nil, nil, err
	}
	srv, err := cmpserver.NewServer(plugin.CMPServerInitConstants{PluginConfig: *cfg})
	if err != nil {
		return nil, nil, err
	}
	g, err := srv.CreateGRPC()
	if err != nil {
		return nil, nil, err
	}
	lis, err := net.Listen("unix", cfg.Address())
	if err != nil {
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- g.Serve(lis) }()
	return cfg, func() {
		g.Stop()
		<-done
	}, nil
}

// request carries what repo-server knows about one manifest generation
// (apiclient.ManifestRequest).
type request struct {
	AppName     string
	Namespace   string
	Project     string
	Revision    string
	RepoURL     string
	Path        string
	TargetRev   string
	KubeVersion string
	APIVersions []string
	Plugin      *v1alpha1.ApplicationSourcePlugin
}

const revision = "8f3c2b1a9d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"

// apiVersions is KUBE_API_VERSIONS of a cluster running External Secrets
// Operator: group/version and group/version/Kind, as the controller sends them.
var apiVersions = []string{
	"v1", "v1/ConfigMap", "v1/Secret", "apps/v1", "apps/v1/Deployment",
	"external-secrets.io/v1", "external-secrets.io/v1/ExternalSecret", "external-secrets.io/v1/ClusterExternalSecret",
	"external-secrets.io/v1/SecretStore", "external-secrets.io/v1/ClusterSecretStore",
	"external-secrets.io/v1alpha1", "external-secrets.io/v1alpha1/PushSecret", "external-secrets.io/v1alpha1/ClusterPushSecret",
	"generators.external-secrets.io/v1alpha1",
}

func requestFor(app *v1alpha1.Application) request {
	src := app.Spec.GetSource()
	return request{
		AppName:     app.Name,
		Namespace:   app.Spec.Destination.Namespace,
		Project:     app.Spec.Project,
		Revision:    revision,
		RepoURL:     src.RepoURL,
		Path:        src.Path,
		TargetRev:   src.TargetRevision,
		KubeVersion: clusterKubeVersion,
		APIVersions: apiVersions,
		Plugin:      src.Plugin,
	}
}

// getPluginEnvs is reposerver/repository.getPluginEnvs: the request's
// variables, KUBE_VERSION, KUBE_API_VERSIONS, then the plugin's env and
// parameters.
func getPluginEnvs(q request) ([]string, error) {
	kubeVersion, err := kubeVersionEnv(q.KubeVersion)
	if err != nil {
		return nil, err
	}
	envVars := newEnv(q).Environ()
	envVars = append(envVars, "KUBE_VERSION="+kubeVersion)
	envVars = append(envVars, "KUBE_API_VERSIONS="+strings.Join(q.APIVersions, ","))
	return getPluginParamEnvs(envVars, q.Plugin)
}

// getPluginParamEnvs is reposerver/repository.getPluginParamEnvs.
func getPluginParamEnvs(envVars []string, pl *v1alpha1.ApplicationSourcePlugin) ([]string, error) {
	env := envVars
	parsedEnv := make(v1alpha1.Env, len(env))
	for i, v := range env {
		parsedVar, err := v1alpha1.NewEnvEntry(v)
		if err != nil {
			return nil, fmt.Errorf("failed to parse env vars")
		}
		parsedEnv[i] = parsedVar
	}
	if pl != nil {
		for _, entry := range pl.Env {
			newValue := parsedEnv.Envsubst(entry.Value)
			env = append(env, fmt.Sprintf("ARGOCD_ENV_%s=%s", entry.Name, newValue))
		}
		paramEnv, err := pl.Parameters.Environ()
		if err != nil {
			return nil, fmt.Errorf("failed to generate env vars from parameters: %w", err)
		}
		env = append(env, paramEnv...)
	}
	return env, nil
}

// parseApp decodes an Application manifest.
func parseApp(t testing.TB, manifest string) *v1alpha1.Application {
	t.Helper()
	var app v1alpha1.Application
	if err := yaml.UnmarshalStrict([]byte(manifest), &app); err != nil {
		t.Fatalf("Application: %v", err)
	}
	return &app
}

// generate produces an Application's manifests the way repo-server's
// runConfigManagementPluginSidecars does, including its error wrapping.
func generate(t testing.TB, app *v1alpha1.Application) ([]*unstructured.Unstructured, error) {
	t.Helper()
	manifests, err := generateManifests(t, app)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	for _, m := range manifests {
		o, err := splitYAML([]byte(m))
		if err != nil {
			return nil, fmt.Errorf("failed to convert CMP manifests to unstructured objects: %s", err.Error())
		}
		objs = append(objs, o...)
	}
	return objs, nil
}

// generateManifests is the CMP server's answer to repo-server: the
// manifests it parsed from the plugin's stdout, as the text it sends.
func generateManifests(t testing.TB, app *v1alpha1.Application) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), repoServerTimeout)
	defer cancel()
	q := requestFor(app)
	appPath := filepath.Join(gitRepo, q.Path)

	env, err := getPluginEnvs(q)
	if err != nil {
		return nil, err
	}
	pluginName := ""
	if q.Plugin != nil {
		pluginName = q.Plugin.Name
	}
	conn, cmpClient, err := discovery.DetectConfigManagementPlugin(ctx, appPath, gitRepo, pluginName, env, nil)
	if err != nil {
		return nil, err
	}
	defer conn.Close()

	if _, err := cmpClient.CheckPluginConfiguration(ctx, &emptypb.Empty{}); err != nil {
		return nil, fmt.Errorf("error calling cmp-server checkPluginConfiguration: %w", err)
	}
	stream, err := cmpClient.GenerateManifest(ctx, noRetry)
	if err != nil {
		return nil, fmt.Errorf("error getting generateManifestStream: %w", err)
	}
	if err := cmp.SendRepoStream(ctx, appPath, gitRepo, stream, env, nil); err != nil {
		return nil, fmt.Errorf("error generating manifests in cmp: error sending file to cmp-server: %w", err)
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, fmt.Errorf("error generating manifests in cmp: %w", err)
	}
	return resp.Manifests, nil
}

// announce asks for the parameter announcement the way repo-server's
// populatePluginAppDetails does (the Application's Parameters tab).
func announce(t *testing.T, app *v1alpha1.Application) ([]*repoapi.ParameterAnnouncement, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), repoServerTimeout)
	defer cancel()
	q := requestFor(app)
	appPath := filepath.Join(gitRepo, q.Path)
	env, err := getPluginParamEnvs([]string{
		"ARGOCD_APP_NAME=" + q.AppName,
		"ARGOCD_APP_SOURCE_REPO_URL=" + q.RepoURL,
		"ARGOCD_APP_SOURCE_PATH=" + q.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION=" + q.TargetRev,
	}, q.Plugin)
	if err != nil {
		return nil, err
	}
	conn, cmpClient, err := discovery.DetectConfigManagementPlugin(ctx, appPath, gitRepo, q.Plugin.Name, env, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to detect CMP for app: %w", err)
	}
	defer conn.Close()
	stream, err := cmpClient.GetParametersAnnouncement(ctx, noRetry)
	if err != nil {
		return nil, err
	}
	if err := cmp.SendRepoStream(ctx, appPath, gitRepo, stream, env, nil); err != nil {
		return nil, err
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, fmt.Errorf("failed to get parameter announcement: %w", err)
	}
	return resp.ParameterAnnouncements, nil
}

// dial connects to the plugin's socket directly.
func dial(t *testing.T) pluginapi.ConfigManagementPluginServiceClient {
	t.Helper()
	conn, client, err := pluginapi.NewConfigManagementPluginClientSet(pluginCfg.Address()).NewConfigManagementPluginClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return client
}

// toYAML renders objects for failure messages.
func toYAML(objs []*unstructured.Unstructured) string {
	var b bytes.Buffer
	for _, o := range objs {
		y, _ := yaml.Marshal(o.Object)
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.String()
}
