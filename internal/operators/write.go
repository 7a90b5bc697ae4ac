package operators

import (
	"os"
	"path/filepath"
)

// ProfileFileName is the name a user profile gets in a profiles directory:
// OPERATOR_VERSION.yaml, flat, so that the directory becomes a ConfigMap with
// 'kubectl create configmap --from-file=DIR' (which skips subdirectories; keys
// cannot hold '/'). Operator names and canonical versions hold only
// characters a ConfigMap key allows. The loader reads the operator and
// version from the file's content, so any name works; this one is unique.
func ProfileFileName(operator, version string) string {
	return operator + "_" + version + ".yaml"
}

// WriteProfile writes a marshalled profile into profiles directory dir as
// DIR/OPERATOR_VERSION.yaml and returns that path.
func WriteProfile(dir, operator, version string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	target := filepath.Join(dir, ProfileFileName(operator, version))
	return target, os.WriteFile(target, data, 0o644)
}
