package supervisor

import "testing"

// The supervisor gives the cluster commands the caller's environment and
// bounds generate by the sidecar's timeout: it must name them right.
func TestCommandOf(t *testing.T) {
	for want, args := range map[string][]string{
		"generate": {"generate"},
		"check":    {"check", "--kubeconfig", "k", "dir"},
		"learn":    {"profiles", "learn", "--as", "x@1"},
		"extract":  {"profiles", "--help", "extract"},
		"render":   {"--help", "render", "generate"},
		"":         {"--version"},
	} {
		if got := commandOf(args); got != want {
			t.Errorf("commandOf(%q) = %q, want %q", args, got, want)
		}
	}
}

func BenchmarkCommandOf(b *testing.B) {
	for b.Loop() {
		commandOf([]string{"generate"})
	}
}
