package hostile

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A kustomize generator or transformer config may name files that
// kustomize loads itself, fetching http and https addresses with a bare
// client: loopback included, whatever proxy the environment names. The
// preflight refuses every such address in every builtin config, inline,
// in a file or built from a directory, before kustomize runs.

const pluginSecret = "SECRET-BODY-7f3a91"

// loopback serves pluginSecret on 127.0.0.1 and counts the requests.
func loopback(t *testing.T) (port string, requests *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	requests = new(atomic.Int64)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		fmt.Fprint(w, pluginSecret)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, requests
}

const cmGen = "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\nfiles:\n- %s\n"

// pluginCases are repositories whose "PORT" is the loopback listener's port.
var pluginCases = []struct {
	name  string
	files map[string]string
	want  string
}{
	// One builtin, every shape of address.
	{"ConfigMapGenerator file: http://127.0.0.1", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "http://127.0.0.1:PORT/secret")}, `"http://127.0.0.1:PORT/secret" is a URL`},
	{"ConfigMapGenerator file: HTTP://localhost", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "HTTP://localhost:PORT/secret")}, `"HTTP://localhost:PORT/secret" is a URL`},
	{"ConfigMapGenerator file: hTtPs://127.0.0.1", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "hTtPs://127.0.0.1:PORT/secret")}, "is a URL"},
	{"ConfigMapGenerator file: http://[::1]", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "http://[::1]:PORT/secret")}, "is a URL"},
	{"ConfigMapGenerator file: key=http://127.0.0.1", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "k=http://127.0.0.1:PORT/secret")}, "is a URL"},
	{"ConfigMapGenerator file: file:///etc/hostname", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "file:///etc/hostname")}, "is a URL"},
	{"ConfigMapGenerator file: git::http://127.0.0.1", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "git::http://127.0.0.1:PORT/r")}, "is a URL"},
	{"ConfigMapGenerator file: ssh://git@127.0.0.1", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "ssh://git@127.0.0.1:PORT/r.git")}, "is a URL"},
	{"ConfigMapGenerator file: //127.0.0.1", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "//127.0.0.1:PORT/secret")}, "outside the repository root"},
	{"ConfigMapGenerator file: github.com/evil/repo", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "github.com/evil/repo/secret")}, "names a GitHub repository"},
	{"ConfigMapGenerator file: 127.0.0.1:PORT/secret", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "127.0.0.1:PORT/secret")}, "names a remote host"},
	{"ConfigMapGenerator file: ../../ outside", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": fmt.Sprintf(cmGen, "../../../../../../etc/hostname")}, "outside the repository root"},

	// Every builtin that loads a file, each way of naming a config.
	{"ConfigMapGenerator envs", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\nenvs: [http://127.0.0.1:PORT/secret]\n"}, "envs entry"},
	{"ConfigMapGenerator FILES (JSON field names match without case)", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\nFILES: [http://127.0.0.1:PORT/secret]\n"}, "is a URL"},
	{"SecretGenerator files", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": "apiVersion: builtin\nkind: SecretGenerator\nmetadata: {name: leak}\nfiles: [http://127.0.0.1:PORT/secret]\n"}, "SecretGenerator"},
	{"ConfigMapGenerator written inline", map[string]string{"app/kustomization.yaml": "generators:\n- |\n  " + strings.ReplaceAll(fmt.Sprintf(cmGen, "http://127.0.0.1:PORT/secret"), "\n", "\n  ") + "\n"}, "written inline under generators"},
	{"ConfigMapGenerator inline on one line", map[string]string{"app/kustomization.yaml": "generators:\n- '{apiVersion: builtin, kind: ConfigMapGenerator, metadata: {name: leak}, files: [\"http://127.0.0.1:PORT/secret\"]}'\n"}, "is a URL"},
	{"ConfigMapGenerator in a List", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: builtin\n  kind: ConfigMapGenerator\n  metadata: {name: leak}\n  files: [http://127.0.0.1:PORT/secret]\n"}, "is a URL"},
	{"ConfigMapGenerator built from a directory", map[string]string{"app/kustomization.yaml": "generators: [gens]\n", "app/gens/kustomization.yaml": "resources: [gen.yaml]\n", "app/gens/gen.yaml": fmt.Sprintf(cmGen, "http://127.0.0.1:PORT/secret")}, "built from app/gens"},
	{"ConfigMapGenerator whose address a patch writes in", map[string]string{"app/kustomization.yaml": "generators: [gens]\n", "app/gens/kustomization.yaml": "resources: [gen.yaml]\npatches:\n- target: {kind: ConfigMapGenerator}\n  patch: '[{\"op\": \"replace\", \"path\": \"/files/0\", \"value\": \"http://127.0.0.1:PORT/secret\"}]'\n", "app/gens/gen.yaml": fmt.Sprintf(cmGen, "local.txt")}, "is a URL"},
	{"ConfigMapGenerator in a component", map[string]string{"app/kustomization.yaml": "components: [comp]\n", "app/comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ngenerators: [gen.yaml]\n", "app/comp/gen.yaml": fmt.Sprintf(cmGen, "http://127.0.0.1:PORT/secret")}, "is a URL"},
	{"ConfigMapGenerator in a base", map[string]string{"app/kustomization.yaml": "resources: [base]\n", "app/base/kustomization.yaml": "generators: [gen.yaml]\n", "app/base/gen.yaml": fmt.Sprintf(cmGen, "http://127.0.0.1:PORT/secret")}, "app/base/kustomization.yaml"},
	{"PatchTransformer path", map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\ntransformers: [t.yaml]\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n", "app/t.yaml": "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: t}\npath: http://127.0.0.1:PORT/secret\ntarget: {kind: ConfigMap}\n"}, "path entry of PatchTransformer"},
	{"PatchJson6902Transformer path", map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\ntransformers: [t.yaml]\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n", "app/t.yaml": "apiVersion: builtin\nkind: PatchJson6902Transformer\nmetadata: {name: t}\npath: http://127.0.0.1:PORT/secret\ntarget: {kind: ConfigMap, name: cm}\n"}, "PatchJson6902Transformer"},
	{"PatchStrategicMergeTransformer paths", map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\ntransformers: [t.yaml]\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n", "app/t.yaml": "apiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata: {name: t}\npaths: [http://127.0.0.1:PORT/secret]\n"}, "PatchStrategicMergeTransformer"},
	{"ReplacementTransformer path", map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\ntransformers: [t.yaml]\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n", "app/t.yaml": "apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: t}\nreplacements:\n- path: http://127.0.0.1:PORT/secret\n"}, "ReplacementTransformer"},
	{"ValueAddTransformer targetFilePath", map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\ntransformers: [t.yaml]\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n", "app/t.yaml": "apiVersion: builtin\nkind: ValueAddTransformer\nmetadata: {name: t}\nvalue: x\ntargetFilePath: http://127.0.0.1:PORT/secret\n"}, "ValueAddTransformer"},
	{"validator with a URL", map[string]string{"app/kustomization.yaml": "resources: [cm.yaml]\nvalidators: [t.yaml]\n", "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n", "app/t.yaml": "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: t}\npath: http://127.0.0.1:PORT/secret\n"}, "is a URL"},
	{"HelmChartInflationGenerator", map[string]string{"app/kustomization.yaml": "generators: [gen.yaml]\n", "app/gen.yaml": "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: h}\nname: chart\nrepo: http://127.0.0.1:PORT/charts\n"}, "Helm charts inside kustomize are not supported"},
}

func TestKustomizePluginConfigs(t *testing.T) {
	for _, pc := range pluginCases {
		t.Run(pc.name, func(t *testing.T) {
			port, requests := loopback(t)
			files := map[string]string{}
			for k, v := range pc.files {
				files[k] = strings.ReplaceAll(v, "PORT", port)
			}
			out := runCase(t, hostileCase{files: files, app: "app", args: []string{"generate"}, env: generateEnv("app", ""),
				want: "Error: ", code: 1, oneLine: true, clean: true, maxTime: 45 * time.Second, maxRSS: 1024})
			if want := strings.ReplaceAll(pc.want, "PORT", port); !strings.Contains(out, want) {
				t.Errorf("stderr does not say %q:\n%s", want, out)
			}
			if n := requests.Load(); n > 0 {
				t.Errorf("the loopback listener received %d requests", n)
			}
			if strings.Contains(out, pluginSecret) {
				t.Errorf("the listener's answer is on stderr: %s", out)
			}
		})
	}
}

// Local files named by plugin configs are still read: inline, by path and
// built from a directory.
func TestKustomizePluginLocalFiles(t *testing.T) {
	repo := t.TempDir()
	for name, content := range map[string]string{
		"app/kustomization.yaml": "resources: [cm.yaml]\ngenerators:\n- gen.yaml\n- gens\n- |\n" + indent(strings.ReplaceAll(fmt.Sprintf(cmGen, "data/three.txt"), "leak", "three"), "  ") + "\n" +
			"transformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: p}\n  path: patch.yaml\n  target: {kind: ConfigMap, name: cm}\n",
		"app/cm.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
		"app/patch.yaml":              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {patched: yes-four}\n",
		"app/gen.yaml":                fmt.Sprintf(cmGen, "data/one.txt"),
		"app/gens/kustomization.yaml": "resources: [gen.yaml]\n",
		"app/gens/gen.yaml":           strings.ReplaceAll(fmt.Sprintf(cmGen, "data/two.txt"), "leak", "two"),
		"app/data/one.txt":            "content-one",
		"app/data/two.txt":            "content-two",
		"app/data/three.txt":          "content-three",
	} {
		p := filepath.Join(repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "generate")
	cmd.Dir = filepath.Join(repo, "app")
	cmd.Env = append([]string{"PATH=/nonexistent", "HOME=" + repo}, generateEnv("app", "")...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, err.(*exec.ExitError).Stderr)
	}
	for _, want := range []string{"content-one", "content-two", "content-three", "yes-four"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q: %s", want, out)
		}
	}
}
