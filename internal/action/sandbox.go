package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// confine confines the worker process to reading beneath read, with no
// network (Env.Confine), once per run and before the command reads
// anything; in-process runs (Confine unset) and CMP_DEFAULTS_SANDBOX=off
// are not confined. A layer the kernel lacks is a warning, or an error
// with CMP_DEFAULTS_SANDBOX=require.
func (env *Env) confine(read []string) error {
	if env.Confine == nil || env.confined || env.Sidecar.Sandbox == settings.SandboxOff {
		return nil
	}
	env.confined = true
	missing, err := env.Confine(read)
	if err != nil {
		return fmt.Errorf("confining the worker process: %w; docs/install.md says what the sandbox needs from the container", err)
	}
	if len(missing) == 0 {
		return nil
	}
	var lacks []string
	for _, l := range missing {
		lacks = append(lacks, fmt.Sprintf("%s (which stops %s)", l, l.Stops()))
	}
	what := strings.Join(lacks, " and ")
	if env.Sidecar.Sandbox == settings.SandboxRequire {
		return fmt.Errorf("the kernel does not provide %s to the sandbox, and CMP_DEFAULTS_SANDBOX=require; docs/install.md says what each layer needs", what)
	}
	env.Warn(fmt.Sprintf("the worker runs without %s: the kernel does not provide it; CMP_DEFAULTS_SANDBOX=require makes this an error", what))
	return nil
}

// confineJob confines the worker to what a render job reads: the
// repository root and the profile directories.
func (env *Env) confineJob(j Job) error {
	return env.confine(append([]string{j.Source.RepoRoot}, j.Selection.Dirs...))
}

// confineInputs confines the worker to what a command reading args
// (FILE, DIR, '-') with profiles from dirs reads, plus more paths: each
// file, each directory's repository root (where its render reads: ren's,
// else the nearest parent holding .git, as render.NewOptions finds it),
// the profile directories. Stdin is open already.
func (env *Env) confineInputs(args []string, ren Rendering, dirs []string, more ...string) error {
	read := append(append([]string{}, dirs...), more...)
	if ren.RepoRoot != "" {
		read = append(read, ren.RepoRoot)
	}
	for _, a := range args {
		if a == "-" {
			continue
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			continue // the reader reports it
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			if ren.RepoRoot != "" {
				continue
			}
			abs = render.FindRepoRoot(abs)
		}
		read = append(read, abs)
	}
	return env.confine(read)
}

// confine confines the worker to what an audit reads: the Application and
// argocd-cm files, the manifests or else the repository root the
// Applications' sources are rendered from, and the profile directories.
// The checkout's origin URL is read first: a git worktree keeps its
// configuration outside the root.
func (a *Audit) confine(env *Env) error {
	var more []string
	if len(a.Manifests) == 0 {
		// A root that cannot be found is renderApps' error to report.
		if root, _, err := a.repoRoot(env); err == nil {
			more = append(more, root)
			if a.RepoURL == "" {
				a.RepoURL = originURL(root)
			}
		}
	}
	inputs := append(append(append([]string{}, a.Apps...), a.ArgocdCM...), a.Manifests...)
	return env.confineInputs(inputs, a.Rendering, env.selection(a.Operators, nil).Dirs, more...)
}
