package cluster

import (
	"errors"
	"net/url"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Callers act on an error's Reason, not on its text: Fatal stops a run
// only for failures that repeat for every object.
func TestErrorReasons(t *testing.T) {
	c := &Client{Host: "https://127.0.0.1:1", source: "kubeconfig test"}
	gr := schema.GroupResource{Group: "external-secrets.io", Resource: "externalsecrets"}
	for _, tc := range []struct {
		err    error
		reason Reason
		fatal  bool
	}{
		{&url.Error{Op: "Get", URL: "https://127.0.0.1:1", Err: syscall.ECONNREFUSED}, Unreachable, true},
		{apierrors.NewUnauthorized("token expired"), Unauthorized, true},
		{apierrors.NewForbidden(gr, "x", errors.New("no")), Forbidden, false},
		{apierrors.NewInternalError(errors.New("etcd")), Failed, false},
	} {
		err := c.explain(tc.err, "read things", "get", "things")
		var ce *Error
		if !errors.As(err, &ce) || ce.Reason != tc.reason {
			t.Errorf("%v: got %#v, want reason %d", tc.err, err, tc.reason)
		}
		if Fatal(err) != tc.fatal {
			t.Errorf("%v: Fatal = %v, want %v", tc.err, Fatal(err), tc.fatal)
		}
	}
	if Fatal(&Error{Msg: "cannot reach the moon", Reason: Failed}) {
		t.Error("Fatal judged by the message text")
	}
}
