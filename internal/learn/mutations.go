package learn

import (
	"context"
	"fmt"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/check"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Options of a learning run.
type Options struct {
	Operator, Version string // name and version of the learned profile
	Namespace         string // of objects that have none
	FieldManager      string // of the dry-run applies
	AllKinds          bool   // also learn from built-in kinds
	Time              string // recorded in the provenance (RFC 3339, or none)
	// Vary generates inputs from the objects (seeds) and offers conditions
	// that may decide a default ('profiles learn --vary FILE'); nil: the
	// objects as they are.
	Vary *Variations
	// Override is the release the learned profile replaces (OverrideOf):
	// selected in res with its CRD schema defaults only; the profile holds
	// them and what admission adds beyond them, for its API groups only.
	Override *operators.Resolution
}

// Mutations is what 'profiles learn' computes: it fills objs (in place) with e, compiled from
// the selected releases res, dry-runs them on cl (the second run as
// second, another user, or cl) and keeps what admission
// adds beyond the fill. The profile is nil when nothing was learned; the
// report says why.
func Mutations(ctx context.Context, cl, second *cluster.Client, e *defaults.Engine, res []*operators.Resolution, objs []manifest.Object, opt Options) (*Report, *operators.Profile, error) {
	var filledFirst []string
	for _, r := range res {
		if opt.Override == nil || r.Operator != opt.Override.Operator {
			filledFirst = append(filledFirst, r.Operator+"@"+strings.TrimPrefix(r.Requested, "v"))
		}
	}
	if opt.Vary != nil {
		var err error
		if objs, err = opt.Vary.Generate(objs); err != nil {
			return nil, nil, err
		}
	}
	if err := e.FillAll(objs, nil); err != nil {
		return nil, nil, err
	}
	ins := make([]Input, len(objs))
	for i, ob := range objs {
		ins[i].Object = ob
		av, _ := ob.Data["apiVersion"].(string)
		kind, _ := ob.Data["kind"].(string)
		switch {
		case opt.Override != nil && !ofRelease(opt.Override, av):
			ins[i].Skipped = "not of an API group of " + opt.Override.Ref() + ", which the learned profile overrides"
		case !opt.AllKinds && check.BuiltInGroup(av) && !e.Covers(av, kind):
			ins[i].Skipped = "built-in kind (use --all-kinds to learn from it)"
		}
	}
	obs, seen, err := Observe(ctx, cl, second, ins, opt.Namespace, opt.FieldManager)
	if err != nil {
		return nil, nil, err
	}
	// Fields added to some objects and not others, where more than one
	// sibling could decide: dry-run the objects with each candidate swapped,
	// so the learned condition names the field that decides.
	// With variations, every object field admission added is also tried
	// present and empty.
	varied := 0
	vs := Variants(obs)
	if opt.Vary != nil {
		vs = append(vs, Touched(obs)...)
	}
	if len(vs) > 0 {
		var observed []manifest.Object // obs[i] was observed[i]
		for _, in := range ins {
			if in.Skipped == "" {
				observed = append(observed, in.Object)
			}
		}
		vins := make([]Input, len(vs))
		for i, v := range vs {
			vins[i].Object = observed[v.Of]
			vins[i].Object.Data = v.Object
		}
		vobs, _, err := Observe(ctx, cl, second, vins, opt.Namespace, opt.FieldManager)
		if err != nil {
			return nil, nil, fmt.Errorf("dry runs of varied objects (to find the field that decides a default): %v", err)
		}
		for i := range vobs {
			vobs[i].ID = vs[i].ID
		}
		obs = append(obs, vobs...)
		varied = len(vobs)
	}
	result := Build(obs)
	if opt.Vary != nil {
		result = opt.Vary.Build(obs)
	}
	rep := &Report{
		Operator: opt.Operator, Version: opt.Version,
		Learned:    operators.Learned{Cluster: cl.Host, Context: cl.Context, SecondContext: secondContext(cl, second), ServerVersion: cl.Version, Time: opt.Time, Objects: len(obs) - varied, Varied: varied, Operators: filledFirst},
		Objects:    seen,
		Rules:      result.Rules,
		Rewrites:   result.Rewrites,
		NotLearned: result.Findings,
	}
	if opt.Override != nil {
		// Even with no rule: then the cluster's admission adds nothing
		// beyond the release's CRD schema defaults.
		rep.Learned.Overrides = overrides(opt.Override)
		rep.NotRelearned = notRelearned(opt.Override, result.Rules)
		if len(obs) == 0 {
			return rep, nil, nil
		}
		return rep, OverrideProfile(opt.Override, result, rep.Learned), nil
	}
	if len(obs) == 0 || (len(result.Rules) == 0 && len(result.Rewrites) == 0) {
		return rep, nil, nil
	}
	return rep, Profile(opt.Operator, opt.Version, result, rep.Learned), nil
}

// secondContext names the second dry run's context when it is another.
func secondContext(cl, second *cluster.Client) string {
	if second == nil || second == cl {
		return ""
	}
	return second.Context
}
