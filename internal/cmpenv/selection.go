package cmpenv

import "errors"

// ErrNoOperators: the Application selects no operator release, so generate
// would fill nothing.
var ErrNoOperators = errors.New(`no operator release configured for this Application. Set one of:
  the plugin parameter 'operators' (a map), e.g.
    plugin: {name: cmp-defaults, parameters: [{name: operators, map: {external-secrets: "2.5.0"}}]}
  or the plugin env CMP_DEFAULTS_OPERATORS, e.g.
    plugin: {name: cmp-defaults, env: [{name: CMP_DEFAULTS_OPERATORS, value: "external-secrets@2.5.0"}]}
'cmp-defaults profiles list' shows the operators and releases this sidecar knows`)
