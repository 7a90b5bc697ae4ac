// Package opdocs renders the operator pages under docs/operators from the
// profiles: the releases checked, the change points and what each changed,
// and per kind and apiVersion the fields filled and their values.
package opdocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/diff"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/tree"
)

// Pages renders one page per operator, keyed by file name.
func Pages(st *operators.Store) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, op := range st.Operators() {
		b, err := Page(st, op)
		if err != nil {
			return nil, err
		}
		out[op+".md"] = b
	}
	return out, nil
}

// Page renders the page of one operator. Every profile is listed by what
// changed from the change point before it; the oldest and the newest are
// listed in full, so the fields of any release can be read off the page.
func Page(st *operators.Store, op string) ([]byte, error) {
	rels, err := st.Releases(op)
	if err != nil {
		return nil, err
	}
	profs, err := st.Profiles(op)
	if err != nil {
		return nil, err
	}
	if len(profs) == 0 {
		return nil, fmt.Errorf("operator %s has no profiles", op)
	}
	oldest, newest := profs[0], profs[len(profs)-1]
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", op)
	fmt.Fprintf(&b, "<!-- Generated from profiles/%s by scripts/gen-profiles.sh (or `go test ./profiles -run TestOperatorPages -update`); do not edit. -->\n\n", op)
	if !slices.ContainsFunc(profs, func(p *operators.Profile) bool { return !p.MutationsOnly() }) { // an optional webhook's
		fmt.Fprintf(&b, "The defaults that %s, an optional webhook, adds to the objects it matches, release by release, as `cmp-defaults` fills them", op)
		fmt.Fprintf(&b, " with `--operator %s@VERSION` selected next to the operator's release, whose profile has the CRD schema defaults.", op)
		b.WriteString(" Select it only where the cluster runs the webhook: without it, the API server adds none of these fields.\n")
	} else {
		fmt.Fprintf(&b, "The CRD schema defaults that the API server adds to %s objects, release by release, as `cmp-defaults` fills them", op)
		fmt.Fprintf(&b, " with `--operator %s@VERSION`.\n", op)
	}
	if src := indexSource(st, op); src != "" {
		fmt.Fprintf(&b, "Source: %s.\n", src)
	}
	if ch := newest.Channel; ch != "" {
		channelNote(&b, st, op, newest)
	}
	fmt.Fprintf(&b, "\n%d releases checked, %s to %s; %d profiles (change points).\n", len(rels), rels[0].Version, rels[len(rels)-1].Version, len(profs))
	webhooks(&b, st.Webhooks(op), profs)
	notesSection(&b, op)
	learnedNote(&b, rels)
	configuredSection(&b, op, profs)
	notFilledSection(&b, op)

	b.WriteString("\n## Releases checked\n\n| Release | Date | Profile in force |\n|---|---|---|\n")
	for _, r := range rels {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Version, r.Date, r.Profile)
	}

	b.WriteString("\n## Change points\n")
	for i, p := range profs {
		fmt.Fprintf(&b, "\n### %s\n\n", p.Version)
		if i == 0 {
			fmt.Fprintf(&b, "The oldest profile; its fields are listed in full [below](#%s-oldest).\n", anchor(p.Version))
			continue
		}
		prev := profs[i-1]
		d := diff.Profiles(res(op, prev), res(op, p))
		if len(d.Kinds) == 0 {
			fmt.Fprintf(&b, "Same fields as %s.\n", prev.Version)
			continue
		}
		fmt.Fprintf(&b, "Changes from %s:\n", prev.Version)
		for _, k := range d.Kinds {
			note := ""
			switch k.Change {
			case tree.Added:
				note = " (new: first defaults for this kind)"
			case tree.Removed:
				note = " (no defaults left)"
			}
			fmt.Fprintf(&b, "\n%s %s%s\n\n", code(k.APIVersion), code(k.Kind), note)
			b.WriteString("| Change | Field | Value |\n|---|---|---|\n")
			for _, r := range k.Rules {
				// A webhook rule's form and condition are part of what it
				// does: a drop rule removes the value shown, it adds nothing.
				field := code(r.Path)
				if r.When != "" {
					field += " when " + code(r.When)
				}
				kind := ""
				if r.Type != "" && r.Type != "default" {
					kind = " " + r.Type
				}
				switch r.Change {
				case tree.Added:
					fmt.Fprintf(&b, "| added%s | %s | %s |\n", kind, field, value(r.To))
				case tree.Removed:
					fmt.Fprintf(&b, "| removed%s | %s | was %s |\n", kind, field, value(r.From))
				default:
					det := ""
					if r.Detail != "" {
						det = " (" + r.Detail + ")"
					}
					fmt.Fprintf(&b, "| changed%s | %s | %s → %s%s |\n", kind, field, value(r.From), value(r.To), det)
				}
			}
		}
	}

	full(&b, oldest, "oldest")
	if newest != oldest {
		full(&b, newest, "newest")
	}
	return b.Bytes(), nil
}

// learnedNote says, for an operator with webhook mutations in some
// release, which releases have them and where to read what depends on the
// operator's configuration.
func learnedNote(b *bytes.Buffer, rels []operators.Release) {
	var learned []string
	for _, r := range rels {
		if strings.HasPrefix(r.Mutations, "learned from ") {
			learned = append(learned, r.Version)
		}
	}
	if len(learned) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**Webhook defaults** (fields marked \"webhook\") are filled for %s, each learned from that release's own module"+
		" (the index names it); other releases fill CRD schema defaults only. [Webhook defaults](../webhooks.md) says how they"+
		" are learned.\n", strings.Join(learned, ", "))
}

// channelNote explains the choice between operators that are channels of
// one upstream: the wrong one fills fields the cluster's CRDs lack, or
// misses fields they default.
func channelNote(b *bytes.Buffer, st *operators.Store, op string, p *operators.Profile) {
	fmt.Fprintf(b, "\n**Channel: %s.** These profiles are read from the %s channel's CRDs.", p.Channel, p.Channel)
	var others []string
	for _, o := range st.Operators() {
		if o == op {
			continue
		}
		ps, err := st.Profiles(o)
		if err != nil || len(ps) == 0 {
			continue
		}
		q := ps[len(ps)-1]
		if q.Channel != "" && q.Provenance != nil && p.Provenance != nil && q.Provenance.Repository == p.Provenance.Repository {
			others = append(others, fmt.Sprintf("`%s` (%s channel)", o, q.Channel))
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(b, " The same releases in other channels: %s.", strings.Join(others, ", "))
	}
	b.WriteString(" The channels differ in kinds, fields and defaults, and a cluster has the CRDs of one channel installed:" +
		" select the operator that matches them. Each CRD names its channel in an annotation, for example\n\n" +
		"    kubectl get crd httproutes.gateway.networking.k8s.io -o jsonpath='{.metadata.annotations.gateway\\.networking\\.k8s\\.io/channel}'\n\n" +
		"`cmp-defaults explain` prints the channel of every profile in force, and `cmp-defaults check` against the cluster" +
		" shows the fields a wrong choice leaves out.\n")
}

// webhooks says which mutating webhooks the operator registers for its own
// kinds and what of their writing the profiles cover.
func webhooks(b *bytes.Buffer, hooks []operators.Webhook, profs []*operators.Profile) {
	if len(hooks) == 0 {
		return
	}
	count := func(p *operators.Profile) int {
		n := 0
		for _, r := range p.Resources {
			n += len(r.Mutations)
		}
		return n
	}
	mutations := count(profs[len(profs)-1])
	var with []string // older profiles with mutation rules
	for _, p := range profs[:len(profs)-1] {
		if count(p) > 0 {
			with = append(with, p.Version)
		}
	}
	var files []string
	for _, h := range hooks {
		if f := code(h.File); !contains(files, f) {
			files = append(files, f)
		}
	}
	manifest := "The operator's install manifest (%s, read at every release checked) registers"
	if len(files) > 1 {
		manifest = "The operator's install manifests (%s, read at every release checked that has them) register"
	}
	b.WriteString("\n## Mutating webhooks\n\n")
	fmt.Fprintf(b, manifest+" mutating admission webhooks"+
		" for its own kinds; they can add fields on create and update, after the CRD schema defaults.", strings.Join(files, ", "))
	if mutations == 0 && len(with) > 0 {
		fmt.Fprintf(b, " **Covered:** the CRD schema defaults of every served version, listed on this page, and"+
			" the fields these webhooks write that the profile(s) of %s fill (their mutation rules, listed under those change points below)."+
			" **Not covered:** what these webhooks write in every other release, so a field one of them sets still differs"+
			" from Git after cmp-defaults fills the manifests; learn a profile that replaces such a release from a cluster"+
			" that runs it (`cmp-defaults profiles learn --as OPERATOR@VERSION`), or ignore the field in Argo CD.\n", strings.Join(with, ", "))
	} else if mutations == 0 {
		b.WriteString(" **Covered:** the CRD schema defaults of every served version, listed on this page." +
			" **Not covered:** what these webhooks write. No profile of this operator has a mutation rule," +
			" so a field one of them sets still differs from Git after cmp-defaults fills the manifests." +
			" Learn a profile that replaces the release from a cluster that runs it" +
			" (`cmp-defaults profiles learn --as OPERATOR@VERSION`), or ignore such fields in Argo CD.\n")
	} else {
		fmt.Fprintf(b, " The newest profile fills %d field(s) these webhooks write (marked \"webhook\" below);"+
			" other fields they write are not filled.\n", mutations)
	}
	b.WriteString("\n| Webhook | Releases | Matches |\n|---|---|---|\n")
	for _, h := range hooks {
		var rules []string
		for _, r := range h.Rules {
			var gvr []string
			for _, g := range r.APIGroups {
				for _, v := range r.APIVersions {
					for _, res := range r.Resources {
						gvr = append(gvr, code(g+"/"+v+" "+res))
					}
				}
			}
			rules = append(rules, strings.Join(gvr, ", ")+" on "+strings.Join(r.Operations, ", "))
		}
		rel := h.From + " to " + h.To
		if h.From == h.To {
			rel = h.From
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", code(h.Name), rel, strings.Join(rules, "; "))
	}
}

func full(b *bytes.Buffer, p *operators.Profile, which string) {
	fmt.Fprintf(b, "\n## Fields filled by %s (%s)\n", p.Version, which)
	fmt.Fprintf(b, "<a id=\"%s-%s\"></a>\n", anchor(p.Version), which)
	if p.Provenance != nil {
		fmt.Fprintf(b, "\nRead from %s at %s:", p.Provenance.Repository, p.Provenance.Tag)
		for i, f := range p.Provenance.Files {
			sep := ","
			if i == len(p.Provenance.Files)-1 {
				sep = "."
			}
			fmt.Fprintf(b, " %s (blob %s)%s", code(f.Path), f.Blob[:min(12, len(f.Blob))], sep)
		}
		b.WriteString("\n")
	}
	if len(p.Resources) == 0 {
		b.WriteString("\nNo kind has a schema default.\n")
	}
	for _, r := range p.Resources {
		fmt.Fprintf(b, "\n### %s %s\n\n| Field | Value |\n|---|---|\n", r.APIVersion(), r.Kind)
		for _, d := range r.Defaults {
			fmt.Fprintf(b, "| %s | %s |\n", code(d.Path), value(d.Value))
		}
		for _, d := range r.ReadDefaults {
			how := "on read, from the storage version " + r.StorageVersion
			if !r.FillsOnRead() {
				how += "; the conversion webhook decides, not filled"
			}
			fmt.Fprintf(b, "| %s (%s) | %s |\n", code(d.Path), how, value(d.Value))
		}
		for _, m := range r.Mutations {
			v := value(m.Value)
			switch {
			case m.Format != "":
				v = code(m.Format) + " (per list item)"
			case m.Insert != "":
				v = value(m.Value) + " inserted " + m.Insert + " unless an entry has its " + code(m.Key)
			case m.Drop:
				v = value(m.Value) + " removed (admission drops it)"
			}
			fmt.Fprintf(b, "| %s (webhook) | %s |\n", code(m.Path), v)
		}
		for _, x := range r.Rewrites {
			fmt.Fprintf(b, "| %s (webhook rewrites) | %s written is stored as %s: never changed, fill warns |\n", code(x.Path), value(x.From), value(x.To))
		}
	}
}

func res(op string, p *operators.Profile) *operators.Resolution {
	return &operators.Resolution{Operator: op, Requested: p.Version, Profile: p}
}

func indexSource(st *operators.Store, op string) string {
	src := st.IndexSource(op)
	return strings.TrimSuffix(src, " (every release below was checked)")
}

func anchor(v string) string { return strings.ReplaceAll(v, ".", "") }

// code formats text as inline code that is safe inside a table cell.
func code(s string) string {
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

func value(v any) string {
	j, err := json.Marshal(v)
	if err != nil {
		return code(fmt.Sprint(v))
	}
	return code(string(j))
}
