package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/guard"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/profiles"
)

// cli carries what every command shares.
type cli struct {
	stdin io.Reader
	out   *bytes.Buffer // stdout, written only when the command succeeds
	errw  io.Writer

	apiVersions []string // KUBE_API_VERSIONS, for generate's served-kind warning
	names       names    // how messages name settings: flags, or generate's parameters
	// releaseNameSet: the release name was chosen, not defaulted
	releaseNameSet bool
	store          *operators.Store // the profiles of the last engine built
	unservedSeen   map[string]bool  // apiVersion and kind already warned about
	src            *sourceFlags     // Helm settings for directory arguments
	maxInput       int64            // bytes per input file or stdin, and per render
	maxMemory      int64            // heap bytes of the whole run (guard.Watch)
	limits         manifest.Limits
	ctx            context.Context // ends when the memory budget is exceeded
}

// readLimits takes the input limits from the sidecar's environment.
func (c *cli) readLimits() error {
	c.maxInput = render.DefaultMaxBytes
	c.maxMemory = guard.DefaultMaxMemory
	c.limits = manifest.DefaultLimits
	c.limits.Warn = func(msg string) { fmt.Fprintln(c.errw, "Warning: "+msg) }
	for name, dst := range map[string]*int64{"CMP_DEFAULTS_MAX_INPUT_BYTES": &c.maxInput, "CMP_DEFAULTS_MAX_MEMORY_BYTES": &c.maxMemory} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return fmt.Errorf("%s=%q: want a positive number of bytes", name, v)
			}
			*dst = n
		}
	}
	if v := os.Getenv("CMP_DEFAULTS_MAX_DOCUMENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("CMP_DEFAULTS_MAX_DOCUMENTS=%q: want a positive number", v)
		}
		c.limits.MaxDocuments = n
	}
	return nil
}

// context is the run's context: cancelled when the memory budget is exceeded.
func (c *cli) context() context.Context {
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

// common are the flags shared by commands that fill.
type common struct {
	operators   []string
	profileDirs []string
	strict      bool
	output      string
}

func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "cmp-defaults",
		Short: "Pre-fill the fields Kubernetes admission adds, so Argo CD diffs are clean",
		Long: `cmp-defaults renders manifests (plain YAML, Helm, Kustomize) and fills exactly the fields
that the API server will add on admission -- CRD schema defaults and known webhook defaults --
taken from versioned operator profiles. Desired state then equals what the cluster stores,
and Argo CD shows no drift without ignoreDifferences.

It runs as an Argo CD Config Management Plugin ('generate') and as a local CLI.`,
		Example: `  cmp-defaults render --operator external-secrets@2.5.0 examples/plain
  cmp-defaults explain --operator external-secrets@2.5.0 examples/plain/externalsecret.yaml
  cmp-defaults audit app.yaml --source examples/plain --operator external-secrets@2.5.0`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(c.fillCmd(), c.explainCmd(), c.profilesCmd(), c.versionCmd())
	for _, add := range extraCommands {
		root.AddCommand(add(c))
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.Version = buildVersion()
	root.SetVersionTemplate("cmp-defaults {{.Version}}\n")
	c.addCompletion(root)
	return root
}

// extraCommands lets other files register commands without touching root().
var extraCommands []func(*cli) *cobra.Command

func addCommon(cmd *cobra.Command, o *common) {
	f := cmd.Flags()
	f.StringArrayVar(&o.operators, "operator", nil, "operator release whose admission defaults to fill, NAME@VERSION (repeatable), e.g. external-secrets@2.5.0")
	f.StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default from $CMP_DEFAULTS_PROFILES_DIR, colon-separated)")
	f.BoolVar(&o.strict, "strict", false, "fail instead of warning when a release was not checked (newer or unknown patch)")
	f.StringVarP(&o.output, "output", "o", "yaml", "output format: yaml or json")
}

func (o *common) validate() error {
	if o.output != "yaml" && o.output != "json" {
		return usagef("--output %q: use yaml or json", o.output)
	}
	return nil
}

func (o *common) dirs() []string {
	if len(o.profileDirs) > 0 {
		return o.profileDirs
	}
	if env := os.Getenv("CMP_DEFAULTS_PROFILES_DIR"); env != "" {
		var out []string
		for _, d := range filepath.SplitList(env) {
			if d != "" {
				out = append(out, d)
			}
		}
		return out
	}
	return nil
}

func (o *common) store() (*operators.Store, error) {
	return operators.Load(operators.LoadOptions{Embedded: profiles.FS, Dirs: o.dirs()})
}

// engine resolves the selected operator releases and compiles their rules.
// Warnings go to stderr once.
func (c *cli) engine(o *common) (*defaults.Engine, []*operators.Resolution, error) {
	return c.engineFor(o, o.operators)
}

func (c *cli) engineFor(o *common, refs []string) (*defaults.Engine, []*operators.Resolution, error) {
	st, err := o.store()
	if err != nil {
		return nil, nil, err
	}
	c.store = st
	for _, w := range st.Warnings {
		fmt.Fprintln(c.errw, "Warning: "+w)
	}
	res, err := c.names.resolveAll(st, refs, o.strict)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range res {
		if r.Warning != "" {
			fmt.Fprintln(c.errw, "Warning: "+r.Warning)
		}
	}
	e, err := defaults.Compile(res, st.ProfileFile)
	if err != nil {
		return nil, nil, err
	}
	// jq rules stop when the run ends (its memory budget); the pipeline
	// narrows this to its deadline.
	return e.WithContext(c.context()), res, nil
}

func (n names) resolveAll(st *operators.Store, refs []string, strict bool) ([]*operators.Resolution, error) {
	var res []*operators.Resolution
	seen := map[string]string{}
	for _, ref := range refs {
		for _, one := range strings.Split(ref, ",") {
			one = strings.TrimSpace(one)
			if one == "" {
				continue
			}
			name, ver, err := operators.ParseRef(one)
			if err != nil {
				return nil, n.badSetting("operators", err)
			}
			if prev, dup := seen[name]; dup {
				if prev == ver {
					continue
				}
				return nil, n.badSetting("operators", fmt.Errorf("conflicting releases for %s: %s and %s; select one", name, strings.TrimPrefix(prev, "v"), strings.TrimPrefix(ver, "v")))
			}
			seen[name] = ver
			r, err := st.Resolve(name, ver, strict)
			if err != nil {
				return nil, n.resolveError(err)
			}
			res = append(res, r)
		}
	}
	return res, nil
}

// stdinIsTerminal is swapped in tests.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// needInput refuses to wait silently for a person to type manifests: with
// no argument and a terminal on stdin, it prints the usage (exit 2). '-'
// still reads the terminal.
func (c *cli) needInput(cmd *cobra.Command, args []string) error {
	if len(args) > 0 || !stdinIsTerminal(c.stdin) {
		return nil
	}
	fmt.Fprint(c.errw, cmd.UsageString())
	return usagef("no input: name files or directories, or '-' to read stdin")
}

// readInputs decodes the named files, or stdin for none or "-";
// directories are rendered.
func (c *cli) readInputs(args []string) ([]manifest.Object, error) {
	var all []manifest.Object
	err := c.eachInput(args, func(o manifest.Object) error {
		all = append(all, o)
		return nil
	})
	return all, err
}

// eachInput calls fn for every object of the inputs, one document at a
// time, so that fill can stream instead of holding every object.
func (c *cli) eachInput(args []string, fn func(manifest.Object) error) error {
	if len(args) == 0 {
		args = []string{"-"}
	}
	for _, a := range args {
		if fi, statErr := os.Stat(a); a != "-" && statErr == nil && fi.IsDir() {
			objs, err := c.renderDir(a)
			if err != nil {
				return err
			}
			for _, o := range objs {
				if err := fn(o); err != nil {
					return err
				}
			}
			continue
		}
		if a == "-" {
			if err := manifest.EachReader("stdin", c.stdin, c.maxInput, c.limits, fn); err != nil {
				return err
			}
			continue
		}
		f, _, err := openInput(a, c.maxInput)
		if err != nil {
			return err
		}
		err = manifest.EachReader(a, f, c.maxInput, c.limits, fn)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// openInput opens an input file, refusing directories and files over the
// size limit before reading anything.
func openInput(name string, maxInput int64) (*os.File, int64, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", name, pathErr(err))
	}
	if fi.IsDir() {
		return nil, 0, usagef("%s is a directory; pass its files", name)
	}
	if fi.Size() > maxInput {
		return nil, 0, manifest.TooLarge(name, maxInput)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", name, pathErr(err))
	}
	return f, fi.Size(), nil
}

// readFile reads a whole input file of at most maxInput bytes, sizing the
// buffer once (io.ReadAll's doubling would leave up to twice the file behind).
func readFile(name string, maxInput int64) ([]byte, error) {
	f, size, err := openInput(name, maxInput)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, size+512))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxInput+1)); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if int64(buf.Len()) > maxInput { // grew since the stat
		return nil, manifest.TooLarge(name, maxInput)
	}
	return buf.Bytes(), nil
}

func pathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// fillAll fills every object; errors name the object and where it came from.
func fillAll(e *defaults.Engine, objs []manifest.Object, record func(i int, f defaults.Filled)) error {
	for i := range objs {
		var rec func(defaults.Filled)
		if record != nil {
			rec = func(f defaults.Filled) { record(i, f) }
		}
		if err := fillOne(e, objs[i], rec); err != nil {
			return err
		}
	}
	return nil
}

// fillOne fills one object; the error names it and where it came from.
func fillOne(e *defaults.Engine, o manifest.Object, record func(defaults.Filled)) error {
	if err := e.Fill(o.Data, record); err != nil {
		return fmt.Errorf("%s: %s: %v", o.Where(), o.ID(), err)
	}
	return nil
}
