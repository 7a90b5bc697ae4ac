package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-defaults/cmp-defaults/internal/catalog"
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
	var o common
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List operators, the releases checked, and where their profiles come from",
		Example: "  cmp-defaults profiles list\n  cmp-defaults profiles list --profiles-dir ./my-profiles -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := c.loadStore(&o)
			if err != nil {
				return err
			}
			c.warn(st.Warnings...)
			l, err := catalog.ListOf(st)
			if err != nil {
				return err
			}
			return c.print(&o.output, l)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default $CMP_DEFAULTS_PROFILES_DIR)")
	addOutput(cmd, &o.output, "output format", "text", "json")
	return cmd
}

func (c *cli) profilesShow() *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "show OPERATOR[@VERSION]",
		Short: "Show the profile in force for a release, or every checked release of an operator",
		Example: `  cmp-defaults profiles show external-secrets@2.5.0
  cmp-defaults profiles show cert-manager`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := c.loadStore(&o)
			if err != nil {
				return err
			}
			if !strings.Contains(args[0], "@") {
				rels, err := catalog.ReleasesOf(st, args[0])
				if err != nil {
					return err
				}
				return c.print(&o.output, rels)
			}
			res, err := c.names.resolveAll(st, args, o.strict)
			if err != nil {
				return err
			}
			shown := catalog.Show(st, args[0], res[0])
			if shown.Warning != "" {
				c.warn(shown.Warning)
			}
			return c.print(&o.output, shown)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default $CMP_DEFAULTS_PROFILES_DIR)")
	f.BoolVar(&o.strict, "strict", false, "fail when the release was not checked")
	addOutput(cmd, &o.output, "output format", "yaml", "json")
	return cmd
}

func (c *cli) profilesLint() *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "lint [DIR]",
		Short: "Validate profile files (the shipped set without DIR)",
		Long: `Lint parses and validates every profile and index file: the file schema, parseable paths,
values of the declared type, jq expressions, and that every indexed release points at a
profile that exists and is the newest at or below it. Rules for built-in Kubernetes kinds
(apps/v1 Deployment, v1 Pod, ...) in user profiles are a warning, an error with --strict.`,
		Example: "  cmp-defaults profiles lint ./my-profiles\n  cmp-defaults profiles lint",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := catalog.Lint(args)
			if rep != nil {
				c.warn(rep.Warnings...)
			}
			if err != nil {
				return err
			}
			return rep.Write(c.out, c.errw, strict)
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail instead of warning when a profile has rules for built-in Kubernetes kinds")
	return cmd
}

func (c *cli) profilesExtract() *cobra.Command {
	var op, ver, dir string
	var fc fromClusterFlags
	cmd := &cobra.Command{
		Use:   "extract --operator NAME --version V (CRD.yaml... | --from-cluster [--kubeconfig FILE] [--context C] [--group G])",
		Short: "Write a profile from CRD files (served versions' schema defaults)",
		Long: `Extract reads CustomResourceDefinitions (multi-document files; other kinds are ignored)
and writes a profile with the schema defaults of every served version. Defaults under
.status are left out: the API server drops status on create when the status subresource
is on, and status belongs to the controller.

With --from-cluster the CRDs come from a live cluster (the verb list on
customresourcedefinitions.apiextensions.k8s.io is needed): the profile then describes exactly
what that cluster's CRDs default, patched CRDs included. --group keeps the CRDs of one
operator (repeatable); without it every CRD of the cluster goes into the profile.`,
		Example: `  cmp-defaults profiles extract --operator my-operator@1.4.2 crds/*.yaml > my-operator-1.4.2.yaml
  cmp-defaults profiles extract --operator my-operator --version 1.4.2 --write ./my-profiles crds/
  cmp-defaults profiles extract --from-cluster --context prod --group external-secrets.io --group generators.external-secrets.io \
    --operator external-secrets --version 2.5.0 --write ./my-profiles`,
		Args: func(cmd *cobra.Command, args []string) error {
			if fc.enabled && len(args) > 0 {
				return usagef("--from-cluster reads the CRDs from the cluster: pass no CRD files (got %s)", strings.Join(args, " "))
			}
			if fc.enabled {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		PreRunE: func(cmd *cobra.Command, _ []string) error { return splitOperatorRef(cmd) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if fc.enabled {
				return c.extractFromCluster(cmd.Context(), &fc, op, ver, dir)
			}
			for _, name := range []string{"kubeconfig", "context", "group", "request-timeout"} {
				if cmd.Flags().Changed(name) {
					return usagef("--%s needs --from-cluster", name)
				}
			}
			if op == "" || ver == "" {
				return usagef("extract needs --operator NAME and --version V")
			}
			crds, err := catalog.CRDsFromFiles(args, c.maxInput)
			if err != nil {
				return err
			}
			return c.writeExtracted(op, ver, crds, dir)
		},
	}
	f := cmd.Flags()
	f.StringVar(&op, "operator", "", "operator name (lower case), or NAME@VERSION as elsewhere, e.g. external-secrets@2.5.0")
	f.StringVar(&ver, "version", "", "operator release the CRDs belong to, e.g. 2.5.0 (or give --operator NAME@VERSION)")
	f.StringVar(&dir, "write", "", "write DIR/OPERATOR/VERSION.yaml instead of printing")
	f.BoolVar(&fc.enabled, "from-cluster", false, "read the CRDs from a live cluster instead of files (with --kubeconfig, --context, --group)")
	fc.cluster.add(cmd)
	f.StringSliceVar(&fc.groups, "group", nil, "with --from-cluster: only CRDs of this API group (repeatable, or comma-separated; default: every CRD)")
	return cmd
}

// writeExtracted prints the profile of crds, or writes it to
// DIR/OPERATOR/VERSION.yaml.
func (c *cli) writeExtracted(op, ver string, crds *catalog.CRDs, dir string) error {
	x, err := catalog.Extract(op, ver, crds)
	if err != nil {
		return err
	}
	return x.Write(c.out, c.errw, dir)
}

// splitOperatorRef lets --operator take NAME@VERSION, as every other
// command does, in place of --operator NAME --version VERSION.
func splitOperatorRef(cmd *cobra.Command) error {
	op, _ := cmd.Flags().GetString("operator")
	name, v, ok := strings.Cut(op, "@")
	if !ok {
		return nil
	}
	if cur, _ := cmd.Flags().GetString("version"); cur != "" && strings.TrimPrefix(cur, "v") != strings.TrimPrefix(v, "v") {
		return usagef("--operator %s and --version %s name different releases; give one", op, cur)
	}
	if err := cmd.Flags().Set("operator", name); err != nil {
		return err
	}
	return cmd.Flags().Set("version", v)
}
