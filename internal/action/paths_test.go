package action

import (
	"errors"
	"testing"
)

func TestUserPaths(t *testing.T) {
	wd := t.TempDir()
	base := errors.New("kustomization " + wd + "/overlay: resources entry \"../base\" (" + wd + "/base) is outside the repository root " + wd + "/overlay.")
	err := UserPaths(UsageError{base}, wd, []string{"render", "overlay"})
	want := `kustomization overlay: resources entry "../base" (base) is outside the repository root overlay.`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	var ue UsageError
	if !errors.As(err, &ue) || !errors.Is(err, base) {
		t.Error("the shortened error must still be the usage error it came from")
	}
	// Outside the working directory, URLs and JSON pointers stay as they are.
	other := errors.New("/elsewhere/x.yaml: see https://example.com/a; jsonPointer /spec/replicas")
	if got := UserPaths(other, wd, nil); got != other {
		t.Errorf("changed: %v", got)
	}
	// A user who typed an absolute path reads absolute paths.
	if got := UserPaths(base, wd, []string{"render", wd + "/overlay"}); got != base {
		t.Errorf("changed: %v", got)
	}
	if got := UserPaths(base, wd, []string{"render", "--repo-root=" + wd}); got != base {
		t.Errorf("changed: %v", got)
	}
}
