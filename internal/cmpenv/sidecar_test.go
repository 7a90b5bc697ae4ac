package cmpenv

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

func TestSidecarFromEnv(t *testing.T) {
	s, err := SidecarFromEnv(nil)
	if err != nil || s.MaxInput != render.DefaultMaxBytes || s.Limits.MaxDocuments != manifest.DefaultLimits.MaxDocuments || s.ProfileDirs != nil {
		t.Fatalf("defaults: %+v, %v", s, err)
	}
	s, err = SidecarFromEnv([]string{"CMP_DEFAULTS_MAX_INPUT_BYTES=4096", "CMP_DEFAULTS_MAX_DOCUMENTS=7", "CMP_DEFAULTS_PROFILES_DIR=/a::/b"})
	if err != nil || s.MaxInput != 4096 || s.Limits.MaxDocuments != 7 || !reflect.DeepEqual(s.ProfileDirs, []string{"/a", "/b"}) {
		t.Fatalf("set: %+v, %v", s, err)
	}
	for _, bad := range []string{"CMP_DEFAULTS_MAX_INPUT_BYTES=-1", "CMP_DEFAULTS_MAX_MEMORY_BYTES=lots", "CMP_DEFAULTS_MAX_DOCUMENTS=0"} {
		name, _, _ := strings.Cut(bad, "=")
		if _, err := SidecarFromEnv([]string{bad}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming %s", bad, err, name)
		}
	}
}
