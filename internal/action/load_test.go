package action

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// shipped is the store of the shipped profiles alone.
func shipped(t *testing.T) *operators.Store {
	t.Helper()
	st, err := loadStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestLoadSelection(t *testing.T) {
	l, err := loadSelection(context.Background(), shipped(t), operators.Selection{Refs: []string{"external-secrets@2.5.0", "external-secrets@v2.5.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Releases) != 1 || l.Releases[0].Ref() != "external-secrets@v2.5.0" || l.Engine == nil || l.Store == nil {
		t.Fatalf("a repeated release is selected once: got %d releases", len(l.Releases))
	}

	for _, refs := range [][]string{{"external-secrets@2.5.0", "external-secrets@2.4.0"}, {"external-secrets"}} {
		_, err := loadSelection(context.Background(), shipped(t), operators.Selection{Refs: refs})
		var re *operators.RefError
		if !errors.As(err, &re) {
			t.Errorf("%v: want a *RefError, got %v", refs, err)
		}
	}
	_, err = loadSelection(context.Background(), shipped(t), operators.Selection{Refs: []string{"no-such-operator@1.0.0"}})
	var re *operators.ResolveError
	if !errors.As(err, &re) || !re.Unknown {
		t.Errorf("unknown operator: want an unknown *ResolveError, got %v", err)
	}
}

func TestUnservedKinds(t *testing.T) {
	l, err := loadSelection(context.Background(), shipped(t), operators.Selection{Refs: []string{"external-secrets@2.5.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := unservedKinds(l.Releases, nil); w != nil {
		t.Errorf("without KUBE_API_VERSIONS nothing is compared: %v", w)
	}
	w := unservedKinds(l.Releases, []string{"v1"})
	if len(w) != 1 || !strings.Contains(w[0], "serves none of the kinds of external-secrets@2.5.0") {
		t.Errorf("a cluster serving only v1: %v", w)
	}
	var all []string
	for _, rs := range l.Releases[0].Profile.Resources {
		all = append(all, rs.APIVersion()+"/"+rs.Kind)
	}
	if w := unservedKinds(l.Releases, all); len(w) != 0 {
		t.Errorf("a cluster serving every kind: %v", w)
	}
	w = unservedKinds(l.Releases, all[1:])
	if len(w) != 1 || !strings.Contains(w[0], "does not serve 1 of the") {
		t.Errorf("a cluster serving all but one apiVersion: %v", w)
	}
	// One group/version listed: one short line by group/version,
	// not every kind.
	w = unservedKinds(l.Releases, []string{"external-secrets.io/v1"})
	if len(w) != 1 || len(w[0]) > 300 || strings.Contains(w[0], "PushSecret") || !strings.Contains(w[0], "generators.external-secrets.io/v1alpha1 (") {
		t.Errorf("a cluster serving one group/version: %v", w)
	}
}
