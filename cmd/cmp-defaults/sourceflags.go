package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
)

// sourceFlags are the Helm settings, as helm and kubectl spell them, for
// directory arguments of commands that read manifests (fill, explain,
// diff-releases, audit --manifests); render and check have their own.
type sourceFlags struct {
	values, set, setString, setJSON, setFile []string
	namespace, releaseName                   string
	used                                     bool // a directory was rendered with them
}

// register adds the flags, as helm spells them; each usage starts with for.
func (sf *sourceFlags) register(f *pflag.FlagSet, forWhat string) {
	f.StringArrayVarP(&sf.values, "values", "f", nil, forWhat+"Helm values file relative to the chart (repeatable; must stay inside the repository)")
	f.StringArrayVar(&sf.set, "set", nil, forWhat+"Helm value KEY=VALUE (repeatable, like helm --set)")
	f.StringArrayVar(&sf.setString, "set-string", nil, forWhat+"Helm string value KEY=VALUE (repeatable, like helm --set-string)")
	f.StringArrayVar(&sf.setJSON, "set-json", nil, forWhat+"Helm JSON value KEY=JSON, or a JSON object (repeatable, like helm --set-json)")
	f.StringArrayVar(&sf.setFile, "set-file", nil, forWhat+"Helm value KEY=FILE: the file's text, path as for --values (repeatable, like helm --set-file)")
	f.StringVarP(&sf.namespace, "namespace", "n", "", forWhat+"Helm release namespace (.Release.Namespace)")
	f.StringVar(&sf.releaseName, "release-name", "", forWhat+"Helm release name (default: the directory's name)")
}

// apply sets the Helm settings given on opt.
func (sf *sourceFlags) apply(opt *render.Options) {
	opt.ValuesFiles, opt.Set, opt.SetString, opt.SetJSON, opt.SetFile = sf.values, sf.set, sf.setString, sf.setJSON, sf.setFile
	opt.Namespace = sf.namespace
	if sf.releaseName != "" {
		opt.ReleaseName = sf.releaseName
	}
}

func (sf *sourceFlags) given() bool {
	return len(sf.values)+len(sf.set)+len(sf.setString)+len(sf.setJSON)+len(sf.setFile) > 0 || sf.namespace != "" || sf.releaseName != ""
}

// addSourceFlags adds the flags to cmd and makes its directory arguments
// render with them. Settings given without any directory to apply them to
// are refused: the user believes they did something.
func (c *cli) addSourceFlags(cmd *cobra.Command) {
	sf := &sourceFlags{}
	sf.register(cmd.Flags(), "directory arguments that are Helm charts: ")
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c.src = sf
		if err := run(cmd, args); err != nil {
			return err
		}
		if sf.given() && !sf.used {
			return usagef("-f/--values, --set*, -n/--namespace and --release-name apply to a directory argument that is a Helm chart; none was given")
		}
		return nil
	}
}

// renderDir renders a source directory: with the command's source flags,
// else default settings (release name = directory name); 'render' offers
// every setting.
func (c *cli) renderDir(dir string) ([]manifest.Object, error) {
	opt, err := render.NewOptions(dir, "", c.maxInput)
	if err != nil {
		return nil, err
	}
	if sf := c.src; sf != nil && sf.given() {
		sf.apply(&opt)
		kind, err := render.Detect(opt.Dir)
		if err != nil {
			return nil, err
		}
		opt.Kind = kind
		if err := c.unusedSettings(kind, opt, dir, sf.releaseName != ""); err != nil {
			return nil, err
		}
		sf.used = true
	}
	return render.Render(c.ctx, opt)
}
