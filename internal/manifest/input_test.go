package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rendered := 0
	r := &Reader{Stdin: strings.NewReader("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"), MaxBytes: 1 << 20, Limits: DefaultLimits,
		Dir: func(string) ([]Object, error) {
			rendered++
			return []Object{{Source: "rendered"}}, nil
		}}
	objs, err := r.All([]string{file, dir, "-"})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 || objs[0].Source != file || objs[1].Source != "rendered" || objs[2].Source != "stdin" || rendered != 1 {
		t.Errorf("objects %+v, %d renders", objs, rendered)
	}
	if _, err := ReadFile(dir, 1<<20); !errors.Is(err, ErrDirectory) {
		t.Errorf("ReadFile of a directory: %v", err)
	}
	if _, err := ReadFile(file, 10); err == nil || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Errorf("ReadFile over the limit: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "nope"), 10); err == nil || strings.Contains(err.Error(), "stat ") {
		t.Errorf("missing file: %v (want the file named once, without the stat operation)", err)
	}
}
