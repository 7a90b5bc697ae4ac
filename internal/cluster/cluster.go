// Package cluster talks to a live Kubernetes API server for the commands
// that compare profiles with a real cluster ('check', 'profiles extract
// --from-cluster'). It only reads and runs server-side dry runs: nothing is
// ever written to the cluster.
//
// Errors say what went wrong in the user's terms: an unreachable API server
// (with the kubeconfig and context used), a missing permission (the verb and
// resource to grant), a kind the cluster does not serve (no CRD installed).
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// DefaultTimeout bounds each request to the API server.
const DefaultTimeout = 30 * time.Second

// Options select the cluster.
type Options struct {
	Kubeconfig string        // path; empty: $KUBECONFIG, then ~/.kube/config, then in-cluster
	Context    string        // kubeconfig context; empty: the current one
	Timeout    time.Duration // per request; 0: 30s
	// NoExec refuses a kubeconfig user with an exec credential plugin
	// (a program kubeconfig names, run as kubectl runs it).
	NoExec bool
}

// MaxResponse bounds the body of one API server response: the largest a
// real server sends (a list of every CRD of a big cluster) is far below.
const MaxResponse = 128 << 20

// Client is a connection to one cluster.
type Client struct {
	Host      string // API server URL
	Context   string // kubeconfig context in use ("" in-cluster)
	Namespace string // the context's namespace, "default" when unset
	Version   string // server version, e.g. v1.34.2

	source string // kubeconfig file(s) or "in-cluster config", for messages
	dyn    dynamic.Interface
	disco  discovery.CachedDiscoveryInterface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// Connect loads the kubeconfig, builds clients and asks the server for its
// version, so that an unreachable cluster is reported before any work.
func Connect(ctx context.Context, opt Options) (*Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	source := "kubeconfig " + strings.Join(rules.Precedence, ":")
	if opt.Kubeconfig != "" {
		if _, err := os.Stat(opt.Kubeconfig); err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %v", opt.Kubeconfig, errors.Unwrap(err))
		}
		rules.ExplicitPath = opt.Kubeconfig
		source = "kubeconfig " + opt.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: opt.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	raw, rawErr := cc.RawConfig()
	if opt.Context != "" && rawErr == nil {
		if _, ok := raw.Contexts[opt.Context]; !ok {
			var names []string
			for n := range raw.Contexts {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("context %q is not in %s (contexts: %s)", opt.Context, source, orNone(strings.Join(names, ", ")))
		}
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, fmt.Errorf("no cluster configured: pass --kubeconfig FILE (and --context NAME), or set $KUBECONFIG")
		}
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	c := &Client{Host: cfg.Host, source: source, Namespace: "default"}
	if rawErr == nil && len(raw.Contexts) > 0 {
		c.Context = opt.Context
		if c.Context == "" {
			c.Context = raw.CurrentContext
		}
	} else {
		c.source = "in-cluster config"
	}
	if ns, _, err := cc.Namespace(); err == nil && ns != "" {
		c.Namespace = ns
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 50, 100
	cfg.Timeout = opt.Timeout
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	cfg.UserAgent = "cmp-defaults"
	cfg.WarningHandler = rest.NoWarnings{}
	if cfg.ExecProvider != nil && opt.NoExec {
		return nil, fmt.Errorf("%s: the user of the context runs the credential plugin %q, and --no-exec-plugin refuses it; use a kubeconfig with a token or certificate, or leave out --no-exec-plugin", source, cfg.ExecProvider.Command)
	}
	// Every response is bounded in bytes; credentials never follow a
	// redirect (client-go adds them to every request, whatever its host).
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return boundedBody{rt} })
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	hc.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("the API server redirected the request to %s; cmp-defaults follows no redirects, so that credentials never reach another host", req.URL.Redacted())
	}
	if c.dyn, err = dynamic.NewForConfigAndClient(cfg, hc); err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	c.disco = memory.NewMemCacheClient(dc)
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(c.disco)
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, c.explain(err, "ask the API server for its version", "", "")
	}
	c.Version = v.GitVersion
	return c, nil
}

// boundedBody ends a response body that passes MaxResponse bytes with an error.
type boundedBody struct{ rt http.RoundTripper }

func (b boundedBody) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.rt.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: MaxResponse}
	}
	return resp, err
}

type limitedBody struct {
	io.ReadCloser
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("the API server's response is larger than %d MiB; cmp-defaults reads no more of it", MaxResponse>>20)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.ReadCloser.Read(p)
	l.left -= int64(n)
	return n, err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// where names the cluster for messages.
func (c *Client) where() string {
	s := "the API server at " + c.Host
	if c.Context != "" {
		s += " (context " + c.Context + " of " + strings.TrimPrefix(c.source, "kubeconfig ") + ")"
	} else {
		s += " (" + c.source + ")"
	}
	return s
}

// Error is a cluster error explained for the user.
type Error struct {
	Msg    string
	Cause  error
	Reason Reason
}

// Reason says what kind of failure an Error is, for callers that act on it.
type Reason int

const (
	Failed       Reason = iota // any other failure of a request
	Unreachable                // no connection to the API server
	Unauthorized               // the credentials were rejected (401)
	Forbidden                  // the identity lacks a verb (403)
	Rejected                   // the object is invalid for this cluster
	NoNamespace                // the object's namespace does not exist
)

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Cause }

// explain turns a client error into a message that says what to do. what
// is the action ("read CustomResourceDefinitions"), verbs and resource what
// the action needs, for permission errors.
func (c *Client) explain(err error, what, verbs, resource string) error {
	var se apierrors.APIStatus
	switch {
	case apierrors.IsForbidden(err):
		msg := fmt.Sprintf("not allowed to %s on %s: %s", what, c.where(), statusMessage(err))
		if verbs != "" {
			msg += fmt.Sprintf("; this needs the verbs %s on %s: grant them with a Role or ClusterRole (nothing is written: cmp-defaults only reads and runs server-side dry runs)", verbs, resource)
		}
		return &Error{msg, err, Forbidden}
	case apierrors.IsUnauthorized(err):
		return &Error{fmt.Sprintf("%s rejected the credentials (401 Unauthorized) while trying to %s: log in again or fix the user of the context", c.where(), what), err, Unauthorized}
	case errors.As(err, &se):
		return &Error{fmt.Sprintf("could not %s on %s: %s", what, c.where(), statusMessage(err)), err, Failed}
	}
	var ue *url.Error
	var ne net.Error
	if errors.As(err, &ue) || errors.As(err, &ne) || strings.Contains(err.Error(), "connection refused") {
		return &Error{fmt.Sprintf("cannot reach %s: %v; check --kubeconfig and --context, and that the cluster is running and reachable from here", c.where(), rootCause(err)), err, Unreachable}
	}
	return &Error{fmt.Sprintf("could not %s on %s: %v", what, c.where(), err), err, Failed}
}

func statusMessage(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		if m := se.Status().Message; m != "" {
			return m
		}
		return string(se.Status().Reason)
	}
	return err.Error()
}

func rootCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// UnknownKindError: the cluster serves no such apiVersion and kind.
type UnknownKindError struct {
	APIVersion, Kind string
	Served           []string // versions the cluster serves of the group, if any
}

func (e *UnknownKindError) Error() string {
	gv, _ := schema.ParseGroupVersion(e.APIVersion)
	if len(e.Served) > 0 {
		return fmt.Sprintf("the cluster does not serve %s %s: group %s is served in %s; is the CRD of another release installed?", e.APIVersion, e.Kind, gv.Group, strings.Join(e.Served, ", "))
	}
	if gv.Group == "" {
		return fmt.Sprintf("the cluster does not serve %s %s", e.APIVersion, e.Kind)
	}
	return fmt.Sprintf("the cluster does not serve %s %s: no CustomResourceDefinition for it is installed (kubectl get crd | grep %s)", e.APIVersion, e.Kind, gv.Group)
}

// Mapping finds the resource of apiVersion/kind.
func (c *Client) Mapping(apiVersion, kind string) (*meta.RESTMapping, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %v", apiVersion, err)
	}
	m, err := c.mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: kind}, gv.Version)
	if err == nil {
		return m, nil
	}
	if meta.IsNoMatchError(err) {
		uk := &UnknownKindError{APIVersion: apiVersion, Kind: kind}
		if groups, gerr := c.disco.ServerGroups(); gerr == nil {
			for _, g := range groups.Groups {
				if g.Name == gv.Group {
					for _, v := range g.Versions {
						uk.Served = append(uk.Served, v.GroupVersion)
					}
				}
			}
		}
		// The group is served, but not this kind in this version.
		if len(uk.Served) > 0 {
			for _, s := range uk.Served {
				if s == apiVersion {
					uk.Served = nil
					break
				}
			}
		}
		return nil, uk
	}
	return nil, c.explain(err, "discover the API resources", "", "")
}

// APIVersions lists the group/versions the cluster serves, as Helm's
// .Capabilities.APIVersions takes them.
func (c *Client) APIVersions() ([]string, error) {
	groups, err := c.disco.ServerGroups()
	if err != nil {
		return nil, c.explain(err, "discover the API groups", "", "")
	}
	var out []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			out = append(out, v.GroupVersion)
		}
	}
	sort.Strings(out)
	return out, nil
}

func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}

func (c *Client) resource(m *meta.RESTMapping, namespace string) dynamic.ResourceInterface {
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dyn.Resource(m.Resource).Namespace(namespace)
	}
	return c.dyn.Resource(m.Resource)
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDs lists the cluster's CustomResourceDefinitions as unstructured
// objects.
func (c *Client) CRDs(ctx context.Context) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	opts := metav1.ListOptions{Limit: 100}
	for {
		l, err := c.dyn.Resource(crdResource).List(ctx, opts)
		if err != nil {
			return nil, c.explain(err, "list CustomResourceDefinitions", "list", "customresourcedefinitions.apiextensions.k8s.io (cluster-wide)")
		}
		out = append(out, l.Items...)
		if l.GetContinue() == "" {
			return out, nil
		}
		opts.Continue = l.GetContinue()
	}
}

// Fatal says whether err would repeat for every further object: the
// cluster cannot be reached or rejects the credentials.
func Fatal(err error) bool {
	var ce *Error
	if !errors.As(err, &ce) {
		return false
	}
	return ce.Reason == Unreachable || ce.Reason == Unauthorized
}
