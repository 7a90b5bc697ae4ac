package e2e

//go:generate go run gen.go

import (
	"os"
	"os/exec"
	"testing"
)

// TestGenerated fails when harness_test.go or e2e_test.go is not what gen.go
// makes of test/e2e/cmp-v3's copy.
func TestGenerated(t *testing.T) {
	cmd := exec.Command("go", "run", "gen.go", "-check")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run gen.go -check: %v", err)
	}
}
