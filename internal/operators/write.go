package operators

import (
	"os"
	"path/filepath"
)

// WriteProfile writes a marshalled profile where a profiles directory keeps
// it, DIR/OPERATOR/VERSION.yaml, and returns that path.
func WriteProfile(dir, operator, version string, data []byte) (string, error) {
	target := filepath.Join(dir, operator, version+".yaml")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return "", err
	}
	return target, os.WriteFile(target, data, 0o644)
}
