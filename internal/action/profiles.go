package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/catalog"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// List lists the operators, their checked releases and profile sources.
type List struct {
	Operators
}

func (l *List) Run(_ context.Context, env *Env) (*Result, error) {
	if err := env.confine(env.selection(l.Operators, nil).Dirs); err != nil {
		return nil, err
	}
	st, err := env.Store(l.Operators)
	if err != nil {
		return nil, err
	}
	env.Warn(st.Warnings...)
	rep, err := catalog.ListOf(st)
	return &Result{Report: rep}, err
}

// Show prints the profile in force for a release (Ref NAME@VERSION), or
// every checked release of an operator (Ref NAME).
type Show struct {
	Operators
	Ref string
}

func (s *Show) Run(_ context.Context, env *Env) (*Result, error) {
	if err := env.confine(env.selection(s.Operators, nil).Dirs); err != nil {
		return nil, err
	}
	st, err := env.Store(s.Operators)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(s.Ref, "@") {
		rels, err := catalog.ReleasesOf(st, s.Ref)
		return &Result{Report: rels}, err
	}
	res, err := operators.Selection{Refs: settings.SplitList(s.Ref), Strict: s.Strict}.Resolve(st)
	if err != nil {
		return nil, selectionError(settings.CLI, err)
	}
	shown := catalog.Show(st, s.Ref, res[0])
	if shown.Warning != "" {
		env.Warn(shown.Warning)
	}
	return &Result{Report: shown}, nil
}

// Lint validates profile files: the shipped set, or Dir. Problems are
// what it looks for: the report lists every one (Found, exit 3).
type Lint struct {
	Dir    []string // none or one
	Strict bool     // rules for built-in kinds are problems
}

func (l *Lint) Run(_ context.Context, env *Env) (*Result, error) {
	if err := env.confine(l.Dir); err != nil {
		return nil, err
	}
	rep, err := catalog.Lint(l.Dir, l.Strict)
	if rep != nil {
		env.Warn(rep.Warnings...)
	}
	if err != nil {
		return nil, err
	}
	if rep.Empty() {
		return nil, fmt.Errorf("%s: no profiles found", rep.Where)
	}
	if !rep.OK() {
		return &Result{Report: rep, Found: true, Summary: rep.Summary()}, nil
	}
	env.Warn(rep.Claims...)
	return &Result{Report: rep}, nil
}

// Extract writes the profile of CRDs, from Files or the cluster.
type Extract struct {
	Operator, Version string // Operator may be NAME@VERSION
	Files             []string
	FromCluster       bool
	Cluster           cluster.Options
	Groups            []string // with FromCluster: only these API groups
	Write             string   // write DIR/OPERATOR_VERSION.yaml instead of printing
	ClusterFlags      []string // the cluster's flags given, which need FromCluster with files
}

func (x *Extract) Run(ctx context.Context, env *Env) (*Result, error) {
	switch {
	case !x.FromCluster && len(x.Files) > 0 && len(x.ClusterFlags) > 0:
		return nil, Usagef("--%s needs --from-cluster", x.ClusterFlags[0])
	case x.FromCluster && len(x.Files) > 0:
		return nil, Usagef("--from-cluster reads the CRDs from the cluster: pass no CRD files (got %s)", strings.Join(x.Files, " "))
	case !x.FromCluster && len(x.Files) == 0:
		return nil, Usagef("name the CRD files to read, or read the cluster's with --from-cluster")
	}
	if name, v, ok := strings.Cut(x.Operator, "@"); ok {
		// NAME@VERSION, as every other command takes releases.
		if x.Version != "" && strings.TrimPrefix(x.Version, "v") != strings.TrimPrefix(v, "v") {
			return nil, Usagef("--operator %s and --version %s name different releases; give one", x.Operator, x.Version)
		}
		x.Operator, x.Version = name, v
	}
	if x.Operator == "" || x.Version == "" {
		return nil, Usagef("extract needs --operator NAME and --version V")
	}
	// A bad name or version is the command line's mistake: refuse it before
	// reading anything.
	if err := operators.CheckRelease(x.Operator, x.Version); err != nil {
		return nil, Usagef("--operator %s: %v", x.Operator+"@"+x.Version, err)
	}
	var crds *catalog.CRDs
	var err error
	if x.FromCluster {
		crds, err = catalog.CRDsFromCluster(ctx, x.Cluster, x.Groups)
	} else {
		crds, err = catalog.CRDsFromFiles(x.Files, env.Sidecar.MaxInput, env.Sidecar.Limits)
	}
	if err != nil {
		return nil, err
	}
	env.Warn(crds.Warnings...)
	p, err := catalog.Extract(x.Operator, x.Version, crds)
	if err != nil {
		return nil, err
	}
	if x.Write == "" {
		return &Result{Output: p.YAML}, nil
	}
	note, err := p.WriteTo(x.Write)
	return &Result{Notes: note}, err
}

// Version reports the build and the shipped profile ranges.
type Version struct {
	Build string
}

func (v *Version) Run(_ context.Context, env *Env) (*Result, error) {
	st, err := env.Store(Operators{})
	if err != nil {
		return nil, err
	}
	rep, err := catalog.VersionOf(st, v.Build)
	return &Result{Report: rep}, err
}

// Parameters prints the parameter announcement for Argo CD's UI.
type Parameters struct{ Operators }

func (p *Parameters) Run(_ context.Context, env *Env) (*Result, error) {
	st, err := env.Store(p.Operators)
	if err != nil {
		return nil, err
	}
	rep, err := catalog.ParametersOf(st)
	return &Result{Report: rep}, err
}

// Complete completes an --operator value: names, then NAME@VERSION.
func (env *Env) Complete(o Operators, toComplete string, withRelease bool) (*catalog.Completion, error) {
	st, err := env.Store(o)
	if err != nil {
		return nil, err
	}
	return catalog.Complete(st, toComplete, withRelease)
}
