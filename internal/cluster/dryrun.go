package cluster

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

// Target is where an object would go in the cluster.
type Target struct {
	Mapping   *meta.RESTMapping
	Namespace string // "" for cluster-scoped kinds
	Name      string
	Exists    bool // an object of that name is stored already
}

// Resource names the target's resource as RBAC rules do
// (externalsecrets.external-secrets.io).
func (t *Target) Resource() string { return resourceName(t.Mapping.Resource) }

func (t *Target) scope() string {
	if t.Namespace == "" {
		return t.Resource() + " (cluster-wide)"
	}
	return t.Resource() + " in namespace " + t.Namespace
}

// CheckVerbs are the verbs a check needs on every resource it checks.
const CheckVerbs = "get, create and patch"

// Locate maps obj to its resource and looks it up. Namespaced objects
// without a namespace go to defaultNS, as kubectl and Argo CD put them.
func (c *Client) Locate(ctx context.Context, obj map[string]any, defaultNS string) (*Target, error) {
	u := &unstructured.Unstructured{Object: obj}
	m, err := c.Mapping(u.GetAPIVersion(), u.GetKind())
	if err != nil {
		return nil, err
	}
	t := &Target{Mapping: m, Name: u.GetName()}
	if t.Name == "" {
		return nil, fmt.Errorf("the object has no metadata.name")
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		t.Namespace = u.GetNamespace()
		if t.Namespace == "" {
			t.Namespace = defaultNS
		}
	}
	_, err = c.resource(m, t.Namespace).Get(ctx, t.Name, metav1.GetOptions{})
	switch {
	case err == nil:
		t.Exists = true
	case apierrors.IsNotFound(err):
	default:
		return nil, c.explain(err, "read "+u.GetKind()+" "+t.Name, CheckVerbs, t.scope())
	}
	return t, nil
}

// nameBound kinds must keep their name to be valid (a CRD is named after its
// resource), so they are never checked under a generated name.
func nameBound(t *Target) bool {
	switch t.Mapping.Resource.Group {
	case "apiextensions.k8s.io", "apiregistration.k8s.io":
		return true
	}
	return false
}

// Admission is what the cluster's admission makes of an object.
type Admission struct {
	Object map[string]any
	// ApplyRejected is set when server-side apply refuses the object (a
	// field its schema does not declare: Argo CD's ServerSideApply=true sync
	// fails the same way); Object then comes from a dry-run create, which
	// prunes such fields.
	ApplyRejected string
}

// DryRun returns what the cluster's admission makes of obj -- schema
// defaults, pruning, mutating webhooks -- without storing anything:
// a server-side apply in dry-run mode with fieldManager. When an object of
// that name exists already, an apply would merge with it (fields other
// managers own would stay), so the object is instead created, in dry-run
// mode, under a name the server generates: admission then sees exactly
// obj, as on its first sync.
func (c *Client) DryRun(ctx context.Context, t *Target, obj map[string]any, fieldManager string) (*Admission, error) {
	return c.dryRun(ctx, t, obj, fieldManager, t.Exists && !nameBound(t))
}

// DryRunApply is a server-side apply of obj in dry-run mode, as Argo CD's
// sync applies it, also when the object exists: the result is then merged
// with the stored object, as the sync would store it.
func (c *Client) DryRunApply(ctx context.Context, t *Target, obj map[string]any, fieldManager string) (*Admission, error) {
	return c.dryRun(ctx, t, obj, fieldManager, false)
}

func (c *Client) dryRun(ctx context.Context, t *Target, obj map[string]any, fieldManager string, generated bool) (*Admission, error) {
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(jsonSafe(obj).(map[string]any))}
	u.SetNamespace(t.Namespace)
	u.SetResourceVersion("")
	u.SetUID("")
	ri := c.resource(t.Mapping, t.Namespace)
	var (
		out *unstructured.Unstructured
		err error
	)
	create := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: fieldManager, FieldValidation: metav1.FieldValidationIgnore}
	res := &Admission{}
	if generated {
		u.SetName("")
		u.SetGenerateName(t.Name + "-")
		out, err = ri.Create(ctx, u, create)
	} else {
		in := u.DeepCopy()
		out, err = ri.Apply(ctx, t.Name, u, metav1.ApplyOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: fieldManager, Force: true})
		if err != nil && applySchemaError(err) && !t.Exists {
			res.ApplyRejected = statusMessage(err)
			out, err = ri.Create(ctx, in, create)
		}
	}
	if err != nil {
		return nil, c.dryRunError(err, t, u.GetKind())
	}
	res.Object = out.Object
	return res, nil
}

// applySchemaError: server-side apply could not type the object with the
// resource's schema ("field not declared in schema").
func applySchemaError(err error) bool {
	m := err.Error()
	return strings.Contains(m, "failed to create typed patch object") || strings.Contains(m, "field not declared in schema")
}

func (c *Client) dryRunError(err error, t *Target, kind string) error {
	id := kind + " " + t.Name
	if t.Namespace != "" {
		id = kind + " " + t.Namespace + "/" + t.Name
	}
	if apierrors.IsNotFound(err) {
		if st, ok := err.(apierrors.APIStatus); ok && st.Status().Details != nil && st.Status().Details.Kind == "namespaces" {
			return &Error{fmt.Sprintf("namespace %s does not exist on %s: create it first (Argo CD: syncOptions CreateNamespace=true), or check the object's namespace", t.Namespace, c.where()), err, NoNamespace}
		}
	}
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		return &Error{fmt.Sprintf("the cluster rejects %s: %s", id, statusMessage(err)), err, Rejected}
	}
	return c.explain(err, "run a server-side dry run of "+id, CheckVerbs, t.scope())
}

// jsonSafe turns values into what runtime.DeepCopyJSON accepts (int64,
// float64, string, bool, nil, maps and slices of those).
func jsonSafe(v any) any {
	return manifest.MapLeaves(v, func(x any) any {
		switch x := x.(type) {
		case int:
			return int64(x)
		case int32:
			return int64(x)
		case float32:
			return float64(x)
		}
		return x
	})
}
