package plugin

import (
	"reflect"
	"testing"
)

// Messages name a setting as the user changes it: a flag, or under Argo CD
// where it was set; the sidecar's defaults are not the Application's choice.
func TestNames(t *testing.T) {
	if got := (Names{}).Of("timeout"); got != "--timeout" {
		t.Errorf("CLI: %q", got)
	}
	n := Names{Plugin: true, From: map[string]string{"values": "parameter values", "include": "env CMP_DEFAULTS_INCLUDE (the cmp-defaults sidecar container)"}}
	if got := n.Of("values"); got != "parameter values" {
		t.Errorf("plugin, set: %q", got)
	}
	if got := n.Of("strict"); got != "CMP_DEFAULTS_STRICT" {
		t.Errorf("plugin, unset: %q", got)
	}
	if got := n.ByUser([]string{"values", "include"}); !reflect.DeepEqual(got, []string{"values"}) {
		t.Errorf("ByUser = %q", got)
	}
}
