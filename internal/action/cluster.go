package action

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/check"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/learn"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// ClusterSource is what check and learn share: the cluster to ask, and
// the manifests to ask about (DIR rendered as the cluster would see it,
// or FILEs and stdin).
type ClusterSource struct {
	Operators
	Cluster      cluster.Options
	Namespace    string // of objects that have none, and Helm's (default: the context's)
	FieldManager string // of the dry-run applies
	AllKinds     bool   // include built-in kinds
	Rendering           // the render of a DIR; cluster requests have Cluster.Timeout
	// Helm renders a DIR; its Namespace is unused (Namespace above is
	// Helm's too), its capabilities default to the cluster's.
	Helm settings.Helm
	Args []string
}

// newClusterSource has the defaults of the flags: Argo CD's field manager
// and the client's request timeout.
func newClusterSource() ClusterSource {
	return ClusterSource{FieldManager: "argocd-controller", Cluster: cluster.Options{Timeout: cluster.DefaultTimeout}}
}

// connect connects and reads the source; ns is where
// objects without a namespace go.
func (s *ClusterSource) connect(ctx context.Context, env *Env) (cl *cluster.Client, ns string, objs []manifest.Object, err error) {
	if cl, err = cluster.Connect(ctx, s.Cluster); err != nil {
		return nil, "", nil, err
	}
	ns = check.Namespace(s.Namespace, cl)
	objs, err = env.reader(func(dir string) ([]manifest.Object, error) {
		opt, err := s.SourceOptions(env, dir, ns, cl)
		if err != nil {
			return nil, err
		}
		opt.Warn = env.warnDuplicate
		return render.Render(ctx, opt)
	}).All(s.Args)
	return cl, ns, objs, err
}

// SourceOptions renders a DIR as the cluster would see it: Helm's
// capabilities default to the cluster's version and API versions.
func (s *ClusterSource) SourceOptions(env *Env, dir, ns string, cl *cluster.Client) (render.Options, error) {
	h, err := check.Settings(s.Helm, ns, cl)
	if err != nil {
		return render.Options{}, err
	}
	opt, err := render.NewOptions(dir, s.RepoRoot, env.Sidecar.MaxInput, env.Sidecar.Limits, h, settings.Directory{})
	opt.Timeout = s.timeout()
	return opt, err
}

// Check dry-runs the filled manifests on a cluster and reports where the
// cluster's admission and the fill disagree; Found when they do.
type Check struct {
	ClusterSource
}

// NewCheck is a check with the defaults of the flags.
func NewCheck() *Check { return &Check{ClusterSource: newClusterSource()} }

func (c *Check) Run(ctx context.Context, env *Env) (*Result, error) {
	if c.FieldManager == "" {
		return nil, Usagef("--field-manager must not be empty")
	}
	e, res, err := env.Engine(ctx, c.Operators)
	if err != nil {
		return nil, err
	}
	if len(c.Refs) == 0 {
		env.Warn("no --operator selected: nothing is filled; check shows what the cluster adds to the manifests as written")
	}
	cl, ns, objs, err := c.connect(ctx, env)
	if err != nil {
		return nil, err
	}
	rep, err := check.Admission(ctx, cl, e, res, objs, check.Options{Namespace: ns, FieldManager: c.FieldManager, AllKinds: c.AllKinds})
	if err != nil {
		return nil, err
	}
	msg := rep.Summary(cl.Host)
	return &Result{Report: rep, Found: msg != "", Summary: msg}, nil
}

// Learn keeps what a cluster's admission adds beyond the selected profiles
// as a profile of mutations named As.
type Learn struct {
	ClusterSource
	As        string // NAME@VERSION of the learned profile
	LearnedAt string // RFC 3339 or "now"; default $SOURCE_DATE_EPOCH, else none
	Report    string // also write the report as JSON here
	Write     string // write DIR/NAME_VERSION.yaml instead of printing
	Format    string // yaml or json
	// SourceDateEpoch is the environment's SOURCE_DATE_EPOCH: the time
	// learned at without LearnedAt.
	SourceDateEpoch string
	// SecondContext: the kubeconfig context (another user) of the second
	// dry run; "": the same as the first.
	SecondContext string
	// Vary is a variations file: inputs generated from the objects.
	Vary string
}

// NewLearn is a learning run with the defaults of the flags.
func NewLearn() *Learn { return &Learn{ClusterSource: newClusterSource()} }

func (l *Learn) Run(ctx context.Context, env *Env) (*Result, error) {
	name, version, err := learn.ParseAs(l.As)
	if err != nil {
		return nil, UsageError{err}
	}
	if l.FieldManager == "" {
		return nil, Usagef("--field-manager must not be empty")
	}
	at, err := LearnedAt(l.LearnedAt, l.SourceDateEpoch)
	if err != nil {
		return nil, err
	}
	// --as naming a release the profiles know: learn a profile that
	// replaces it, with its CRD schema defaults filled first, not its
	// mutations.
	st, err := env.Store(l.Operators)
	if err != nil {
		return nil, err
	}
	override, err := learn.OverrideOf(st, name, version, l.refs())
	if err != nil {
		return nil, UsageError{err}
	}
	sel := env.selection(l.Operators, l.refs())
	if override != nil {
		sel.Refs = append(sel.Refs, override.Ref())
		sel.DefaultsOnly = name
	}
	e, res, err := env.load(ctx, sel, settings.CLI)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		env.Warn("no --operator selected: CRD schema defaults the cluster adds are learned as mutations too; select the operators' releases to learn only what the webhooks add")
	}
	var vary *learn.Variations
	if l.Vary != "" {
		b, err := manifest.ReadFile(l.Vary, env.Sidecar.MaxInput)
		if err != nil {
			return nil, fmt.Errorf("--vary: %v", err)
		}
		if vary, err = learn.ParseVariations(l.Vary, b); err != nil {
			return nil, fmt.Errorf("--vary: %v", err)
		}
	}
	cl, ns, objs, err := l.connect(ctx, env)
	if err != nil {
		return nil, err
	}
	second := cl
	if l.SecondContext != "" {
		opt := l.Cluster
		opt.Context = l.SecondContext
		if second, err = cluster.Connect(ctx, opt); err != nil {
			return nil, fmt.Errorf("--second-context: %v", err)
		}
		if second.Host != cl.Host {
			return nil, Usagef("--second-context %s names another API server (%s, not %s): both dry runs must reach the same cluster", l.SecondContext, second.Host, cl.Host)
		}
	}
	rep, p, err := learn.Mutations(ctx, cl, second, e, res, objs, learn.Options{Operator: name, Version: version, Namespace: ns, FieldManager: l.FieldManager, AllKinds: l.AllKinds, Time: at, Vary: vary, Override: override})
	if err != nil {
		return nil, err
	}
	// The report comes first on stderr, also when nothing was learned.
	w, err := learn.Write(rep, p, learn.Output{JSON: l.Format == "json", Report: l.Report, Write: l.Write})
	return &Result{Output: w.Profile, Notes: w.Notes}, err
}

// LearnedAt is the provenance time: flag, else sourceDateEpoch (the
// environment's SOURCE_DATE_EPOCH), else none.
func LearnedAt(flag, sourceDateEpoch string) (string, error) {
	switch {
	case flag == "now":
		return time.Now().UTC().Format(time.RFC3339), nil
	case flag != "":
		t, err := time.Parse(time.RFC3339, flag)
		if err != nil {
			return "", Usagef("--learned-at %q: use RFC 3339 (2026-12-01T09:00:00Z) or now", flag)
		}
		return t.UTC().Format(time.RFC3339), nil
	}
	if env := sourceDateEpoch; env != "" {
		n, err := strconv.ParseInt(env, 10, 64)
		if err != nil {
			return "", fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since 1970", env)
		}
		return time.Unix(n, 0).UTC().Format(time.RFC3339), nil
	}
	return "", nil
}
