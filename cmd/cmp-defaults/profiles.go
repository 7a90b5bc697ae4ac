package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/action"
)

func (c *cli) profilesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List, show, lint and extract operator profiles",
		Long: `Profiles describe what one operator release's admission adds, per apiVersion and kind:
CRD schema defaults (generated from CRDs) and known webhook defaults (written by hand, or
learned from a cluster's admission with 'profiles learn').
Shipped profiles are built in; add or override them with --profiles-dir or
$CMP_DEFAULTS_PROFILES_DIR.`,
		Example: `  cmp-defaults profiles list
  cmp-defaults profiles show external-secrets@2.5.0
  cmp-defaults profiles lint ./my-profiles
  cmp-defaults profiles extract --operator my-operator@1.4.2 crds/ --write ./my-profiles`,
	}
	cmd.AddCommand(c.profilesList(), c.profilesShow(), c.profilesLint(), c.profilesExtract(), c.profilesLearn())
	return cmd
}

func (c *cli) profilesList() *cobra.Command {
	var o action.List
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List operators, the releases checked, and where their profiles come from",
		Example: "  cmp-defaults profiles list\n  cmp-defaults profiles list --profiles-dir ./my-profiles -o json",
		Args:    takes(0, 0, "no arguments; 'cmp-defaults profiles show OPERATOR' shows one"),
		RunE:    c.runs(&o, func([]string) {}),
	}
	addProfileDirs(cmd.Flags(), &o.Operators)
	addReportOutput(cmd)
	return cmd
}

func (c *cli) profilesShow() *cobra.Command {
	var o action.Show
	cmd := &cobra.Command{
		Use:     "show OPERATOR[@VERSION]",
		Short:   "Show the profile in force for a release, or every checked release of an operator",
		Example: "  cmp-defaults profiles show external-secrets@2.5.0\n  cmp-defaults profiles show cert-manager",
		Args:    takes(1, 1, "one OPERATOR or OPERATOR@VERSION; 'cmp-defaults profiles list' lists the operators"),
		RunE:    c.runs(&o, func(args []string) { o.Ref = args[0] }),
	}
	addProfileDirs(cmd.Flags(), &o.Operators)
	addStrict(cmd.Flags(), &o.Operators)
	addReportOutput(cmd)
	return cmd
}

func (c *cli) profilesLint() *cobra.Command {
	var o action.Lint
	cmd := &cobra.Command{
		Use:   "lint [DIR]",
		Short: "Validate profile files (the shipped set without DIR)",
		Long: `Lint parses and validates every profile and index file: the file schema, parseable paths,
values of the declared type, jq expressions, and that every indexed release points at a
profile that exists and is the newest at or below it. Rules for built-in Kubernetes kinds
(apps/v1 Deployment, v1 Pod, ...) in user profiles are a warning, a problem with --strict.

Every problem is reported, one line each with its file and line (-o json or yaml: a list of
{file, line, rule, message}, for CI annotations). Exit codes: 0 the profiles pass, 3 problems
were found, 1 error (no profiles at all), 2 usage.`,
		Example: "  cmp-defaults profiles lint ./my-profiles\n  cmp-defaults profiles lint -o json ./my-profiles",
		Args:    takes(0, 1, "one profiles directory, or none for the shipped set"),
		RunE:    c.runs(&o, func(args []string) { o.Dir = args }),
	}
	cmd.Flags().BoolVar(&o.Strict, "strict", false, "rules for built-in Kubernetes kinds are problems, not warnings")
	addReportOutput(cmd)
	return cmd
}

func (c *cli) profilesExtract() *cobra.Command {
	var o action.Extract
	cmd := &cobra.Command{
		Use:   "extract --operator NAME --version V (CRD.yaml... | --from-cluster [--kubeconfig FILE] [--context C] [--group G])",
		Short: "Write a profile from CRD files (served versions' schema defaults)",
		Long: `Extract reads CustomResourceDefinitions (multi-document files; other kinds are ignored)
and writes a profile with the schema defaults of every served version, and the storage
version's defaults the API server adds when it reads an object of another version back
(readDefaults). Defaults under .status are left out: status belongs to the controller.

With --from-cluster the CRDs come from a live cluster (verb list on customresourcedefinitions),
patched CRDs included; --group keeps one operator's (repeatable), else every CRD goes in.`,
		Example: `  cmp-defaults profiles extract --operator my-operator@1.4.2 crds/*.yaml > my-operator-1.4.2.yaml
  cmp-defaults profiles extract --operator my-operator --version 1.4.2 --write ./my-profiles crds/
  cmp-defaults profiles extract --from-cluster --context prod --group external-secrets.io --group generators.external-secrets.io \
    --operator external-secrets --version 2.5.0 --write ./my-profiles`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files, o.ClusterFlags = args, nil
			for _, n := range []string{"kubeconfig", "context", "group", "request-timeout"} {
				if cmd.Flags().Changed(n) {
					o.ClusterFlags = append(o.ClusterFlags, n)
				}
			}
			return c.run(cmd, &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Operator, "operator", "", "operator name (lower case), or NAME@VERSION as elsewhere, e.g. external-secrets@2.5.0")
	f.StringVar(&o.Version, "version", "", "operator release the CRDs belong to, e.g. 2.5.0 (or give --operator NAME@VERSION)")
	f.StringVar(&o.Write, "write", "", "write DIR/OPERATOR_VERSION.yaml (a flat profiles directory, ready for kubectl create configmap --from-file) instead of printing")
	f.BoolVar(&o.FromCluster, "from-cluster", false, "read the CRDs from a live cluster instead of files (with --kubeconfig, --context, --group)")
	addCluster(f, &o.Cluster)
	f.StringSliceVar(&o.Groups, "group", nil, "with --from-cluster: only CRDs of this API group (repeatable, or comma-separated; default: every CRD)")
	return cmd
}

func (c *cli) versionCmd() *cobra.Command {
	o := action.Version{Build: buildVersion()}
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the version and the shipped profile ranges",
		Example: "  cmp-defaults version\n  cmp-defaults version -o json\n  cmp-defaults --version",
		Args:    takes(0, 0, "no arguments"),
		RunE:    c.runs(&o, func([]string) {}),
	}
	addReportOutput(cmd)
	return cmd
}

func (c *cli) parametersCmd() *cobra.Command {
	var o action.Parameters
	cmd := &cobra.Command{
		Use:   "parameters",
		Short: "Print the parameter announcement for the Argo CD UI (JSON array)",
		Long: `Prints the parameter announcements Argo CD reads from the plugin's parameters.dynamic
command (plugin.yaml): the operators of this sidecar's profiles with empty values (an empty
value selects nothing, so the form sent back unchanged never fails) and their newest checked
releases in the tooltip, and the Helm settings. Generate receives only what the Application sets.`,
		Example: "  cmp-defaults parameters\n  CMP_DEFAULTS_PROFILES_DIR=/home/argocd/cmp-defaults/profiles cmp-defaults parameters",
		Args:    takes(0, 0, "no arguments"),
		RunE:    c.runs(&o, func([]string) {}),
	}
	addProfileDirs(cmd.Flags(), &o.Operators)
	return cmd
}
