package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/profiles"
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
	cmd.AddCommand(c.profilesList(), c.profilesShow(), c.profilesLint(), c.withFromCluster(c.profilesExtract()), c.profilesLearn())
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
			if o.output != "text" && o.output != "json" {
				return usagef("--output %q: use text or json", o.output)
			}
			st, err := o.store()
			if err != nil {
				return err
			}
			for _, w := range st.Warnings {
				fmt.Fprintln(c.errw, "Warning: "+w)
			}
			sums, err := st.Summaries()
			if err != nil {
				return err
			}
			if o.output == "json" {
				return writeJSON(c.out, sums)
			}
			tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "OPERATOR\tRELEASES CHECKED\tPROFILES\tSOURCE")
			for _, s := range sums {
				fmt.Fprintf(tw, "%s\t%s .. %s (%d)\t%d\t%s\n", s.Operator, s.Oldest, s.Newest, s.Releases, len(s.Profiles), sourceText(s))
			}
			tw.Flush()
			fmt.Fprintln(c.out, "\nEvery checked release resolves to the newest profile at or below it; see 'cmp-defaults profiles show OPERATOR'.")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default $CMP_DEFAULTS_PROFILES_DIR)")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text or json")
	return cmd
}

// sourceText says which source is in force, naming user overrides.
func sourceText(s operators.Summary) string {
	var user []string
	for _, v := range s.Profiles {
		if src := s.InForce[v]; src != operators.Shipped {
			user = append(user, v+" from "+src)
		}
	}
	out := strings.Join(s.Sources, ", ")
	if len(user) > 0 {
		out += " (in force: " + strings.Join(user, ", ") + ")"
	}
	return out
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
			if err := o.validate(); err != nil {
				return err
			}
			st, err := o.store()
			if err != nil {
				return err
			}
			if !strings.Contains(args[0], "@") {
				rels, err := st.Releases(args[0])
				if err != nil {
					return err
				}
				if o.output == "json" {
					return writeJSON(c.out, rels)
				}
				tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "RELEASE\tDATE\tPROFILE\tFILE")
				for _, r := range rels {
					f, _ := st.ProfileFile(args[0], r.Profile)
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Version, r.Date, r.Profile, f)
				}
				return tw.Flush()
			}
			res, err := c.names.resolveAll(st, args, o.strict)
			if err != nil {
				return err
			}
			r := res[0]
			if r.Warning != "" {
				fmt.Fprintln(c.errw, "Warning: "+r.Warning)
			}
			file, src := st.ProfileFile(r.Operator, r.Profile.Version)
			if o.output == "json" {
				return writeJSON(c.out, r.Profile)
			}
			b, err := operators.Marshal(r.Profile)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.out, "# %s resolves to profile %s (%s, %s)\n", args[0], r.Profile.Version, file, src)
			_, err = c.out.Write(b)
			return err
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default $CMP_DEFAULTS_PROFILES_DIR)")
	f.BoolVar(&o.strict, "strict", false, "fail when the release was not checked")
	f.StringVarP(&o.output, "output", "o", "yaml", "output format: yaml or json")
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
			opt := operators.LoadOptions{Embedded: profiles.FS}
			where := "shipped profiles"
			if len(args) == 1 {
				opt = operators.LoadOptions{Dirs: args, KeepGoing: true}
				where = args[0]
			}
			st, err := operators.Load(opt)
			if err != nil {
				return err
			}
			for _, w := range st.Warnings {
				fmt.Fprintln(c.errw, "Warning: "+w)
			}
			n, errs := operators.Lint(st)
			if len(errs) > 0 {
				for _, e := range errs[:len(errs)-1] {
					fmt.Fprintln(c.errw, "Error: "+e.Error())
				}
				if len(errs) == 1 {
					return errs[0]
				}
				return fmt.Errorf("%v\n%s: %d problem(s)", errs[len(errs)-1], where, len(errs))
			}
			if n == 0 && len(args) == 1 {
				return fmt.Errorf("%s: no profiles found", where)
			}
			claims, err := operators.BuiltinClaims(st)
			if err != nil {
				return err
			}
			for _, cl := range claims {
				if strict {
					return fmt.Errorf("%s (an error because of --strict)", cl)
				}
				fmt.Fprintln(c.errw, "Warning: "+cl)
			}
			fmt.Fprintf(c.out, "%s: %d operator(s), %d profile(s): ok\n", where, len(st.Operators()), n)
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail instead of warning when a profile has rules for built-in Kubernetes kinds")
	return cmd
}

func (c *cli) profilesExtract() *cobra.Command {
	var op, ver, dir string
	cmd := &cobra.Command{
		Use:   "extract --operator NAME@VERSION CRD.yaml...",
		Short: "Write a profile from CRD files (served versions' schema defaults)",
		Long: `Extract reads CustomResourceDefinitions (multi-document files; other kinds are ignored)
and writes a profile with the schema defaults of every served version. Defaults under
.status are left out: the API server drops status on create when the status subresource
is on, and status belongs to the controller.`,
		Example: `  cmp-defaults profiles extract --operator my-operator@1.4.2 crds/*.yaml > my-operator-1.4.2.yaml
  cmp-defaults profiles extract --operator my-operator --version 1.4.2 --write ./my-profiles crds/`,
		Args:    cobra.MinimumNArgs(1),
		PreRunE: func(cmd *cobra.Command, _ []string) error { return splitOperatorRef(cmd) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if op == "" || ver == "" {
				return usagef("extract needs --operator NAME and --version V")
			}
			var files []operators.CRDFile
			for _, a := range args {
				paths := []string{a}
				if fi, err := os.Stat(a); err == nil && fi.IsDir() {
					paths, _ = filepath.Glob(filepath.Join(a, "*.y*ml"))
					sort.Strings(paths)
				}
				for _, p := range paths {
					data, err := readFile(p, c.maxInput)
					if err != nil {
						return err
					}
					files = append(files, operators.CRDFile{Name: p, Data: data})
				}
			}
			crds, err := operators.ParseCRDs(files)
			if err != nil {
				return err
			}
			if len(crds) == 0 {
				return fmt.Errorf("no CustomResourceDefinition found in %s", strings.Join(args, ", "))
			}
			return c.writeExtracted(op, ver, crds, fmt.Sprintf("from %d CRD(s)", len(crds)), dir)
		},
	}
	f := cmd.Flags()
	f.StringVar(&op, "operator", "", "operator name (lower case), or NAME@VERSION as elsewhere, e.g. external-secrets@2.5.0")
	f.StringVar(&ver, "version", "", "operator release the CRDs belong to, e.g. 2.5.0 (or give --operator NAME@VERSION)")
	f.StringVar(&dir, "write", "", "write DIR/OPERATOR/VERSION.yaml instead of printing")
	return cmd
}

// writeExtracted builds a profile from CRDs and prints it, or writes
// DIR/OPERATOR/VERSION.yaml; from says where the CRDs came from.
func (c *cli) writeExtracted(op, ver string, crds []apiextv1.CustomResourceDefinition, from, dir string) error {
	p, err := operators.Extract(op, ver, crds)
	if err != nil {
		return err
	}
	p.Description = fmt.Sprintf("Admission defaults of %s %s: CRD schema defaults of every served version, generated by 'cmp-defaults profiles extract' %s.", p.Operator, p.Version, from)
	b, err := operators.Marshal(p)
	if err != nil {
		return err
	}
	if dir == "" {
		_, err = c.out.Write(b)
		return err
	}
	target := filepath.Join(dir, p.Operator, p.Version+".yaml")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(target, b, 0o644); err != nil {
		return err
	}
	n := 0
	for _, r := range p.Resources {
		n += len(r.Defaults)
	}
	fmt.Fprintf(c.errw, "wrote %s: %d kind version(s), %d default(s), %s\n", target, len(p.Resources), n, from)
	return nil
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

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
