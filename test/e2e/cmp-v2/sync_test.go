package e2e

import (
	"os"
	"strings"
	"testing"
)

// The harness and the tests are shared with test/e2e/cmp-v3: the copies here
// must equal cmp-v3's with the argo-cd module path replaced.
func TestSharedFilesInSync(t *testing.T) {
	for _, f := range []string{"harness_test.go", "e2e_test.go"} {
		v3, err := os.ReadFile("../cmp-v3/" + f)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(string(v3), "github.com/argoproj/argo-cd/v3", "github.com/argoproj/argo-cd/v2")
		if string(v2) != want {
			t.Errorf("%s differs from ../cmp-v3/%s; update it with:\n  sed 's#github.com/argoproj/argo-cd/v3#github.com/argoproj/argo-cd/v2#g' ../cmp-v3/%s > %s", f, f, f, f)
		}
	}
}
