package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/learn"
)

type learnOptions struct {
	checkOptions
	as        string
	learnedAt string
	report    string
	write     string
}

func (c *cli) profilesLearn() *cobra.Command {
	var o learnOptions
	cmd := &cobra.Command{
		Use:   "learn --kubeconfig FILE [--context C] --as NAME@VERSION [--operator OP@VER...] [DIR|FILE...|-]",
		Short: "Keep what a cluster's admission adds (webhooks) as a profile of mutations",
		Long: `Learn renders (a DIR: Helm, Kustomize or plain manifests) or reads (FILEs, or stdin) the
manifests, fills them with the selected operator profiles, and dry-runs each object twice
against the cluster (server-side, nothing is stored): first applied as Argo CD's sync applies
it (field manager argocd-controller, merged with the stored object when it exists), then
again (an object that exists is created under a generated name, so that admission sees it
alone). What admission adds beyond the selected profiles becomes a profile of 'mutations'
named by --as, printed on stdout (or written with --write): save it into a profiles
directory and select it like any operator release, next to the operators' own:

  --operator external-secrets@2.5.0 --operator prod-webhooks@2026.12.1

Only defaults are learned:
  - a value both dry runs add, the same for every object (or list item) that lacks the
    field; list indexes become [] (.spec.rules[].retries);
  - when the value follows a sibling field (.protocol == "HTTP"), the rule keeps that
    condition (select(...) in the path for list items, 'when' otherwise).
Never learned, and reported with the reason and the narrow ignoreDifferences rule that
covers it: values that differ between the two dry runs or between objects (identities,
timestamps, generated names), fields of the stored object, metadata the server owns,
status, list items added or removed. A value the manifest states that admission rewrites
is reported, not learned: cmp-defaults never changes what you wrote.

The report goes to stderr (and as JSON to --report FILE). The profile records where it was
learned (API server, context, Kubernetes version, object count, operators filled first);
the time only with --learned-at or $SOURCE_DATE_EPOCH, so that learning twice from the
same cluster prints the same bytes. Built-in kinds are skipped unless --all-kinds. The
cluster identity needs the verbs get, create and patch on the resources (as for 'check').

Exit codes: 0 a profile was learned, 1 error or nothing to learn, 2 usage.`,
		Example: `  cmp-defaults profiles learn --kubeconfig ~/.kube/config --context prod \
    --as prod-webhooks@2026.12.1 --operator external-secrets@2.5.0 apps/ > prod-webhooks.yaml
  cmp-defaults profiles learn --context prod --as prod-webhooks@2026.12.1 --write ./my-profiles \
    --report learn-report.json manifests.yaml
  helm template my-chart | cmp-defaults profiles learn --as prod-webhooks@1.0.0 -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.runLearn(cmd.Context(), &o, args)
		},
	}
	addCommon(cmd, &o.common)
	addOutput(cmd, &o.output, "format of the profile", "yaml", "json")
	addClusterSource(cmd, &o.checkOptions)
	f := cmd.Flags()
	f.StringVar(&o.as, "as", "", "operator name and version of the learned profile, NAME@VERSION (e.g. prod-webhooks@2026.12.1)")
	f.StringVar(&o.learnedAt, "learned-at", "", "time recorded in the profile, RFC 3339 or 'now' (default $SOURCE_DATE_EPOCH; none: no time, reproducible output)")
	f.StringVar(&o.report, "report", "", "also write the report as JSON to FILE")
	f.StringVar(&o.write, "write", "", "write DIR/NAME/VERSION.yaml instead of printing the profile")
	return cmd
}

// learnedAt is the provenance time: the flag, else $SOURCE_DATE_EPOCH,
// else none.
func learnedAt(flag string) (string, error) {
	switch {
	case flag == "now":
		return time.Now().UTC().Format(time.RFC3339), nil
	case flag != "":
		t, err := time.Parse(time.RFC3339, flag)
		if err != nil {
			return "", usagef("--learned-at %q: use RFC 3339 (2026-12-01T09:00:00Z) or now", flag)
		}
		return t.UTC().Format(time.RFC3339), nil
	}
	if env := os.Getenv("SOURCE_DATE_EPOCH"); env != "" {
		n, err := strconv.ParseInt(env, 10, 64)
		if err != nil {
			return "", fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since 1970", env)
		}
		return time.Unix(n, 0).UTC().Format(time.RFC3339), nil
	}
	return "", nil
}

func (c *cli) runLearn(ctx context.Context, o *learnOptions, args []string) error {
	name, version, err := learn.ParseAs(o.as)
	if err != nil {
		return usageError{err}
	}
	if o.fieldManager == "" {
		return usagef("--field-manager must not be empty")
	}
	at, err := learnedAt(o.learnedAt)
	if err != nil {
		return err
	}
	e, res, err := c.engine(&o.common)
	if err != nil {
		return err
	}
	if err := learn.Selectable(o.as, name, res); err != nil {
		return usageError{err}
	}
	if len(res) == 0 {
		fmt.Fprintln(c.errw, "Warning: no --operator selected: CRD schema defaults the cluster adds are learned as mutations too; select the operators' releases to learn only what the webhooks add")
	}
	cl, ns, objs, err := c.clusterInputs(ctx, &o.checkOptions, args)
	if err != nil {
		return err
	}
	rep, p, err := learn.Run(ctx, cl, e, res, objs, learn.Options{Operator: name, Version: version, Namespace: ns, FieldManager: o.fieldManager, AllKinds: o.allKinds, Time: at})
	if err != nil {
		return err
	}
	return learn.Write(c.out, c.errw, rep, p, learn.Output{JSON: o.output.json(), Report: o.report, Write: o.write})
}
