package operators

import (
	"fmt"
	"strings"
)

// unknownError is the error for an operator name the store does not know:
// the closest known names first ("did you mean"), then all of them.
func (s *Store) unknownError(name string) *ResolveError {
	known := s.Operators()
	msg := fmt.Sprintf("unknown operator %q", name)
	if near := Suggest(name, known); len(near) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, " or "))
	}
	return &ResolveError{Msg: msg + "; known operators: " + strings.Join(known, ", "), Unknown: true}
}

// Suggest returns the names of known that name is probably a misspelling
// of: the same once case, '-', '_' and '.' are ignored, a few edits away
// (one for a short name, two from six letters), or a prefix of at least
// three letters.
func Suggest(name string, known []string) []string {
	key := func(s string) string {
		return strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(s))
	}
	n := strings.ToLower(name)
	edits := 0
	switch {
	case len(n) >= 6:
		edits = 2
	case len(n) >= 3:
		edits = 1
	}
	var out []string
	for _, k := range known {
		if key(k) == key(name) || editDistance(n, k) <= edits || (len(n) >= 3 && strings.HasPrefix(k, n)) {
			out = append(out, k)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// listHint points at the command that lists an operator's releases.
func listHint(name string) string {
	if name == "" || CheckName(name) != nil {
		return ""
	}
	return fmt.Sprintf(" ('cmp-defaults profiles show %s' lists its releases)", name)
}

// CheckRelease checks an operator name and version as a profile names
// them, before anything is read.
func CheckRelease(name, version string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	_, err := CanonicalVersion(version)
	return err
}
