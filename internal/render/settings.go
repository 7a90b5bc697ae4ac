package render

import (
	"fmt"
	"strings"
)

// Unused lists the settings of opt that a source of this kind ignores, by
// their parameter names: values-files, values, set, set-string,
// release-name and namespace apply to Helm charts only (Argo CD puts the
// destination namespace on a plain or Kustomize app's objects itself),
// include and exclude to directory sources only. releaseNameSet and
// namespaceSet say whether the release name and namespace were chosen by
// the user rather than defaulted. A setting that does nothing is a mistake
// the user should hear about: they believe the values apply.
func Unused(kind Kind, opt Options, releaseNameSet, namespaceSet bool) []string {
	var out []string
	if kind != KindHelm {
		if len(opt.ValuesFiles) > 0 {
			out = append(out, "values-files")
		}
		if opt.Values != "" {
			out = append(out, "values")
		}
		if len(opt.Set) > 0 {
			out = append(out, "set")
		}
		if len(opt.SetString) > 0 {
			out = append(out, "set-string")
		}
		if len(opt.SetJSON) > 0 {
			out = append(out, "set-json")
		}
		if len(opt.SetFile) > 0 {
			out = append(out, "set-file")
		}
		if releaseNameSet {
			out = append(out, "release-name")
		}
		if namespaceSet {
			out = append(out, "namespace")
		}
	}
	if kind != KindDirectory {
		if opt.Include != "" {
			out = append(out, "include")
		}
		if opt.Exclude != "" {
			out = append(out, "exclude")
		}
	}
	return out
}

// Applies says what kind of source a setting named by Unused is for.
func Applies(setting string) string {
	switch setting {
	case "include", "exclude":
		return "directory sources of plain manifests"
	}
	return "Helm charts"
}

// UnusedMessage says that the settings unused (named by Unused, spelled
// by name) would do nothing for the kind source dir.
func UnusedMessage(kind Kind, dir string, unused []string, name func(string) string) string {
	parts := make([]string, 0, len(unused))
	for _, u := range unused {
		parts = append(parts, fmt.Sprintf("%s applies to %s only", name(u), Applies(u)))
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
	Key   string // parameter name: set, set-string, set-json, set-file, values
	Value string // the value as given; "" for inline values
	Err   error
	Want  string // what a good value looks like, if the error does not say
}

func (e *SettingError) Error() string { return e.Named(e.Key) }
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
