package render

import (
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Unused lists the settings of opt that a source of this kind ignores:
// the Helm settings apply to Helm charts only (Argo CD puts the
// destination namespace on a plain or Kustomize app's objects itself),
// include and exclude to directory sources only. releaseNameSet and
// namespaceSet say whether the release name and namespace were chosen by
// the user rather than defaulted. A setting that does nothing is a mistake
// the user should hear about: they believe the values apply.
func Unused(kind Kind, opt Options, releaseNameSet, namespaceSet bool) []*settings.Setting {
	var out []*settings.Setting
	add := func(set bool, s *settings.Setting) {
		if set {
			out = append(out, s)
		}
	}
	if kind != KindHelm {
		h := opt.Helm
		add(len(h.ValuesFiles) > 0, settings.ValuesFiles)
		add(h.Values != "", settings.Values)
		add(len(h.Set) > 0, settings.Set)
		add(len(h.SetString) > 0, settings.SetString)
		add(len(h.SetJSON) > 0, settings.SetJSON)
		add(len(h.SetFile) > 0, settings.SetFile)
		add(releaseNameSet, settings.ReleaseName)
		add(namespaceSet, settings.Namespace)
		add(h.SkipSchemaValidation, settings.SkipSchemaValidation)
	}
	if kind != KindDirectory {
		add(opt.Include != "", settings.Include)
		add(opt.Exclude != "", settings.Exclude)
	}
	return out
}

// UnusedMessage says that the settings unused (named by Unused, spelled
// by name) would do nothing for the kind source dir.
func UnusedMessage(kind Kind, dir string, unused []*settings.Setting, name func(*settings.Setting) string) string {
	parts := make([]string, 0, len(unused))
	for _, u := range unused {
		parts = append(parts, fmt.Sprintf("%s applies to %s only", name(u), u.Applies()))
	}
	return fmt.Sprintf("%s is a %s source, so these settings would do nothing: %s", dir, kind.Title(), strings.Join(parts, "; "))
}

// Title is the kind as prose names it: Helm, Kustomize, directory.
func (k Kind) Title() string {
	switch k {
	case KindHelm:
		return "Helm"
	case KindKustomize:
		return "Kustomize"
	}
	return string(k)
}

// SettingError is a value of a render setting that cannot be used (a
// malformed --set, inline values that are not YAML): a mistake in how the
// command was called, which callers report naming the setting as the user
// gave it (a flag, or generate's parameter).
type SettingError struct {
	Setting *settings.Setting
	Value   string // the value as given; "" for inline values
	Err     error
	Want    string // what a good value looks like, if the error does not say
}

func (e *SettingError) Error() string { return e.Named(e.Setting.Name) }
func (e *SettingError) Unwrap() error { return e.Err }

// Named is the message with the setting called name.
func (e *SettingError) Named(name string) string {
	msg := fmt.Sprintf("%s: %v", name, e.Err)
	if e.Value != "" {
		msg = fmt.Sprintf("%s %q: %v", name, e.Value, e.Err)
	}
	if e.Want != "" {
		msg += " (want " + e.Want + ")"
	}
	return msg
}
