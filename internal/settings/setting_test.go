package settings

import (
	"reflect"
	"testing"
)

// Messages name a setting as the user changes it: a flag, or under Argo CD
// where it was set; the sidecar's defaults are not the Application's choice.
func TestNames(t *testing.T) {
	if got := CLI.Of(Timeout); got != "--timeout" {
		t.Errorf("CLI: %q", got)
	}
	n := Names{CMP: true, From: map[*Setting]string{Values: "parameter values", Include: "env CMP_DEFAULTS_INCLUDE (the cmp-defaults sidecar container)"}}
	if got := n.Of(Values); got != "parameter values" {
		t.Errorf("plugin, set: %q", got)
	}
	if got := n.Of(Strict); got != "CMP_DEFAULTS_STRICT" {
		t.Errorf("plugin, unset: %q", got)
	}
	if got := n.ByUser([]*Setting{Values, Include}); !reflect.DeepEqual(got, []*Setting{Values}) {
		t.Errorf("ByUser = %v", got)
	}
}

func TestSplitList(t *testing.T) {
	got := SplitList(" a, b,,", "c", "")
	if !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("SplitList = %q", got)
	}
}
