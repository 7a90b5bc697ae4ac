package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

func TestBuiltInGroup(t *testing.T) {
	for av, want := range map[string]bool{
		"v1": true, "apps/v1": true, "networking.k8s.io/v1": true, "policy/v1": true,
		"gateway.networking.k8s.io/v1": false, "snapshot.storage.k8s.io/v1": false, "autoscaling.x-k8s.io/v1alpha1": false,
		"storage.k8s.io/v1": true, "rbac.authorization.k8s.io/v1": true, "external-secrets.io/v1": false, "cert-manager.io/v1": false,
	} {
		if got := BuiltInGroup(av); got != want {
			t.Errorf("BuiltInGroup(%q) = %v, want %v", av, got, want)
		}
	}
}

// The text report counts what the JSON report holds, and Differ agrees.
func TestReportCounts(t *testing.T) {
	obj := func(name string) report.Object {
		return report.Object{APIVersion: "example.com/v1", Kind: "Widget", Name: name, Source: "in.yaml", Document: 1, Line: 1}
	}
	rep := &Report{Cluster: "https://127.0.0.1:6443", Version: "v1.34.0", Operators: []report.Selection{}, Objects: []Object{
		{Object: obj("same"), Filled: 2, Findings: []cluster.Finding{}},
		{Object: obj("differs"), Findings: []cluster.Finding{{Kind: tree.Added, Path: ".spec.size", Cluster: 3}, {Kind: cluster.NotDefaulted, Path: ".spec.mode", Value: "a"}}},
		{Object: obj("skipped"), Skipped: "built-in kind (use --all-kinds to check it)", Findings: []cluster.Finding{}},
	}}
	if objects, fields := rep.Differ(); objects != 1 || fields != 2 {
		t.Errorf("Differ = %d, %d; want 1, 2", objects, fields)
	}
	var w bytes.Buffer
	WriteText(&w, rep)
	for _, want := range []string{"+ .spec.size = 3  the cluster adds this field", "! .spec.mode = \"a\"  filled, but this cluster does not default it", "3 object(s): 1 match the cluster, 1 differ (2 field(s)), 1 skipped"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, w.String())
		}
	}
}
