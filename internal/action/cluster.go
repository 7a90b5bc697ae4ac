package action

import (
	"fmt"
	"strconv"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/check"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/input"
	"github.com/cmp-defaults/cmp-defaults/internal/learn"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
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
	RepoRoot     string
	Helm         Helm // its Namespace is unused: Namespace above is Helm's too
	KubeVersion  string
	APIVersions  []string // default: what the cluster serves
	Args         []string
}

// connect connects and reads the source; ns is where
// objects without a namespace go.
func (s *ClusterSource) connect(env *Env) (cl *cluster.Client, ns string, objs []manifest.Object, err error) {
	if cl, err = cluster.Connect(env.Ctx, s.Cluster); err != nil {
		return nil, "", nil, err
	}
	ns = check.Namespace(s.Namespace, cl)
	objs, err = env.reader(func(dir string) ([]manifest.Object, error) {
		opt, err := s.SourceOptions(env, dir, ns, cl)
		if err != nil {
			return nil, err
		}
		opt.Warn = func(m string) { env.Warn(m) }
		return render.Render(env.Ctx, opt)
	}).All(s.Args)
	return cl, ns, objs, err
}

// SourceOptions renders a DIR as the cluster would see it: Helm's
// capabilities default to the cluster's version and API versions.
func (s *ClusterSource) SourceOptions(env *Env, dir, ns string, cl *cluster.Client) (render.Options, error) {
	opt, err := render.NewOptions(dir, s.RepoRoot, env.Sidecar.MaxInput)
	if err != nil {
		return opt, err
	}
	s.Helm.apply(&opt)
	return check.SourceOptions(opt, ns, s.KubeVersion, s.APIVersions, cl)
}

// Check dry-runs the filled manifests on a cluster and reports where the
// cluster's admission and the fill disagree; Found when they do.
type Check struct {
	ClusterSource
	Format string // text or json
}

func (c *Check) Run(env *Env) error {
	if c.FieldManager == "" {
		return Usagef("--field-manager must not be empty")
	}
	e, res, err := env.Engine(c.Operators)
	if err != nil {
		return err
	}
	if len(c.Refs) == 0 {
		env.Warn("no --operator selected: nothing is filled; check shows what the cluster adds to the manifests as written")
	}
	cl, ns, objs, err := c.connect(env)
	if err != nil {
		return err
	}
	rep, err := check.Run(env.Ctx, cl, e, res, objs, check.Options{Namespace: ns, FieldManager: c.FieldManager, AllKinds: c.AllKinds})
	if err != nil {
		return err
	}
	if c.Format == "json" {
		err = check.WriteJSON(env.Out, rep)
	} else {
		check.WriteText(env.Out, rep)
	}
	if msg := rep.Summary(cl.Host); err == nil && msg != "" {
		return Found{msg}
	}
	return err
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
	// SecondContext: the kubeconfig context (another user) of the second
	// dry run; "": the same as the first.
	SecondContext string
	// Vary is a variations file: inputs generated from the objects.
	Vary string
}

func (l *Learn) Run(env *Env) error {
	name, version, err := learn.ParseAs(l.As)
	if err != nil {
		return UsageError{err}
	}
	if l.FieldManager == "" {
		return Usagef("--field-manager must not be empty")
	}
	at, err := LearnedAt(l.LearnedAt, env.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	e, res, err := env.Engine(l.Operators)
	if err != nil {
		return err
	}
	if err := learn.Selectable(l.As, name, res); err != nil {
		return UsageError{err}
	}
	if len(res) == 0 {
		env.Warn("no --operator selected: CRD schema defaults the cluster adds are learned as mutations too; select the operators' releases to learn only what the webhooks add")
	}
	var vary *learn.Variations
	if l.Vary != "" {
		b, err := input.ReadFile(l.Vary, env.Sidecar.MaxInput)
		if err != nil {
			return fmt.Errorf("--vary: %v", err)
		}
		if vary, err = learn.ParseVariations(l.Vary, b); err != nil {
			return fmt.Errorf("--vary: %v", err)
		}
	}
	cl, ns, objs, err := l.connect(env)
	if err != nil {
		return err
	}
	second := cl
	if l.SecondContext != "" {
		opt := l.Cluster
		opt.Context = l.SecondContext
		if second, err = cluster.Connect(env.Ctx, opt); err != nil {
			return fmt.Errorf("--second-context: %v", err)
		}
		if second.Host != cl.Host {
			return Usagef("--second-context %s names another API server (%s, not %s): both dry runs must reach the same cluster", l.SecondContext, second.Host, cl.Host)
		}
	}
	rep, p, err := learn.Run(env.Ctx, cl, second, e, res, objs, learn.Options{Operator: name, Version: version, Namespace: ns, FieldManager: l.FieldManager, AllKinds: l.AllKinds, Time: at, Vary: vary})
	if err != nil {
		return err
	}
	return learn.Write(env.Out, env.Stderr, rep, p, learn.Output{JSON: l.Format == "json", Report: l.Report, Write: l.Write})
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
