package main

import (
	"errors"
	"fmt"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/plugin"
)

// names says how messages name settings (plugin.Names).
type names struct{ plugin.Names }

// configError is a mistake in generate's configuration: exit 1, since Argo
// CD shows the message and usage text helps nobody there.
type configError struct{ error }

// badSetting reports a wrong value of a setting: a usage mistake on the
// command line, a configuration error under Argo CD naming the setting.
func (n names) badSetting(key string, err error) error {
	var ue usageError
	if errors.As(err, &ue) {
		err = ue.error
	}
	if n.Plugin {
		return configError{fmt.Errorf("%s: %v", n.Of(key), err)}
	}
	return usageError{err}
}

// selectionError names the setting of a bad operator reference and adds
// to a resolve error how to act on it here.
func (n names) selectionError(err error) error {
	var re *operators.RefError
	if errors.As(err, &re) {
		return n.badSetting("operators", re.Err)
	}
	return n.resolveError(err)
}

// resolveError adds to a resolve error how to act on it here.
func (n names) resolveError(err error) error {
	var re *operators.ResolveError
	if !errors.As(err, &re) {
		return err
	}
	switch {
	case re.Unknown && n.Plugin:
		return configError{fmt.Errorf("%s: %s (add profiles for it to the ConfigMap cmp-defaults-profiles mounted at $CMP_DEFAULTS_PROFILES_DIR in the sidecar; docs/install.md)", n.Of("operators"), re.Msg)}
	case re.Unknown:
		return fmt.Errorf("%s (add your own with --profiles-dir)", re.Msg)
	case re.Strict && n.Plugin:
		return configError{fmt.Errorf("%s: %s (an error because %s is true)", n.Of("operators"), re.Msg, n.Of("strict"))}
	case re.Strict:
		return fmt.Errorf("%s (an error because of --strict)", re.Msg)
	case n.Plugin:
		return configError{fmt.Errorf("%s: %s", n.Of("operators"), re.Msg)}
	}
	return err
}
