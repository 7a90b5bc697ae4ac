// Package catalog holds the use cases that report on the profile store:
// 'profiles list', 'profiles show', 'profiles lint', 'profiles extract',
// 'version', 'parameters' and the shell completion of operator releases.
// Each builds a typed report; the text and JSON writers print it.
package catalog

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/report"
)

// List is 'profiles list': every operator, the releases checked and where
// its profiles come from.
type List struct {
	Operators []operators.Summary
}

// ListOf summarises every operator of st.
func ListOf(st *operators.Store) (*List, error) {
	sums, err := st.Summaries()
	if err != nil {
		return nil, err
	}
	return &List{Operators: sums}, nil
}

// WriteJSON prints the summaries as a JSON array.
func (l *List) WriteJSON(w io.Writer) error { return report.WriteJSON(w, l.Operators) }

// WriteText prints one line per operator.
func (l *List) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATOR\tRELEASES CHECKED\tPROFILES\tSOURCE")
	for _, s := range l.Operators {
		fmt.Fprintf(tw, "%s\t%s .. %s (%d)\t%d\t%s\n", s.Operator, s.Oldest, s.Newest, s.Releases, len(s.Profiles), sourceText(s))
	}
	tw.Flush()
	_, err := fmt.Fprintln(w, "\nEvery checked release resolves to the newest profile at or below it; see 'cmp-defaults profiles show OPERATOR'.")
	return err
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

// Releases is 'profiles show OPERATOR': every checked release of one
// operator and the profile file serving it.
type Releases struct {
	Operator string
	Releases []operators.Release
	Files    []string // the profile file of each release
	// Webhooks is what is known of each release's webhook defaults
	// (operators.WebhookState), LearnedFrom where they were learned.
	Webhooks, LearnedFrom []string
}

// releaseJSON is a release as -o json lists it.
type releaseJSON struct {
	operators.Release
	// WebhookDefaults is learned, none (no webhook) or unknown (a webhook
	// whose defaults were not learned for the release: they drift).
	WebhookDefaults string `json:"webhookDefaults"`
}

// ReleasesOf lists the checked releases of operator name.
func ReleasesOf(st *operators.Store, name string) (*Releases, error) {
	rels, err := st.Releases(name)
	if err != nil {
		return nil, err
	}
	profs, err := st.Profiles(name)
	if err != nil {
		return nil, err
	}
	byVersion := map[string]*operators.Profile{}
	for _, p := range profs {
		byVersion[p.Version] = p
	}
	r := &Releases{Operator: name, Releases: rels}
	for _, rel := range rels {
		f, _ := st.ProfileFile(name, rel.Profile)
		state, from := operators.WebhookUnknown, ""
		if p := byVersion[rel.Profile]; p != nil {
			state, from = operators.WebhookState(p, rel.Mutations)
		}
		r.Files, r.Webhooks, r.LearnedFrom = append(r.Files, f), append(r.Webhooks, state), append(r.LearnedFrom, from)
	}
	return r, nil
}

// WriteJSON prints the releases as a JSON array.
func (r *Releases) WriteJSON(w io.Writer) error {
	out := make([]releaseJSON, len(r.Releases))
	for i, rel := range r.Releases {
		out[i] = releaseJSON{Release: rel, WebhookDefaults: r.Webhooks[i]}
	}
	return report.WriteJSON(w, out)
}

// WriteText prints one line per release.
func (r *Releases) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tDATE\tPROFILE\tFILE\tWEBHOOK DEFAULTS")
	for i, rel := range r.Releases {
		hooks := r.Webhooks[i]
		if r.LearnedFrom[i] != "" {
			hooks += " from " + r.LearnedFrom[i]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", rel.Version, rel.Date, rel.Profile, r.Files[i], hooks)
	}
	return tw.Flush()
}

// Shown is 'profiles show OPERATOR@VERSION': the profile in force for
// one release.
type Shown struct {
	Ref     string // as the user wrote it
	Profile *operators.Profile
	File    string
	Source  string
	Warning string
	// Webhooks says what is known of the release's webhook defaults.
	Webhooks string
}

// Show reports the profile that r resolved ref to.
func Show(st *operators.Store, ref string, r *operators.Resolution) *Shown {
	file, src := st.ProfileFile(r.Operator, r.Profile.Version)
	sh := &Shown{Ref: ref, Profile: r.Profile, File: file, Source: src, Warning: r.Warning}
	switch r.Webhooks {
	case operators.WebhookLearned:
		sh.Webhooks = "learned from " + r.LearnedFrom
	case operators.WebhookUnknown:
		sh.Webhooks = "unknown: the profile names a mutating webhook whose defaults were not learned for this release, so they are not filled"
		if n := st.NearestLearned(r); n != nil {
			sh.Webhooks += "; the nearest release with learned webhook defaults is " + n.Operator + "@" + strings.TrimPrefix(n.Requested, "v")
		}
	}
	return sh
}

// WriteJSON prints the profile as JSON.
func (s *Shown) WriteJSON(w io.Writer) error { return report.WriteJSON(w, s.Profile) }

// WriteText prints the profile as YAML after a comment naming its file.
func (s *Shown) WriteText(w io.Writer) error {
	b, err := operators.Marshal(s.Profile)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# %s resolves to profile %s (%s, %s)\n", s.Ref, s.Profile.Version, s.File, s.Source)
	if s.Webhooks != "" {
		fmt.Fprintf(w, "# webhook defaults: %s\n", s.Webhooks)
	}
	_, err = w.Write(b)
	return err
}
