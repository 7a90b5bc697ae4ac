package preview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxCommentBytes keeps each part of the Markdown report under
// GitHub's 65,536 characters per comment, with room for a CI's wrapper.
const DefaultMaxCommentBytes = 65000

// WriteJSON writes the report as its versioned JSON contract.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes one line per Application that differs or needs
// attention, for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "preview %s -> %s: %s\n", r.Base.label(), r.Head.label(), r.Summary.line())
	for _, a := range r.Apps {
		if a.Change == Unchanged && a.PredictedSync == Synced {
			continue
		}
		fmt.Fprintf(&b, "%s %s/%s: %s", a.Kind, a.Namespace, a.Name, a.Change)
		if a.PredictedSync != "" {
			fmt.Fprintf(&b, ", predicted %s", a.PredictedSync)
		}
		b.WriteString("\n")
		for _, res := range a.Resources {
			fmt.Fprintf(&b, "  %s %s%s\n", res.Change, res.title(), res.flags())
		}
		for _, d := range a.Drift {
			fmt.Fprintf(&b, "  will drift: %s %s (%s)\n", d.Resource, d.Path, d.Rule)
		}
		for _, why := range a.Reasons {
			fmt.Fprintf(&b, "  %s\n", why)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the Markdown parts, one after another, each
// starting with its heading line.
func (r *Report) WriteMarkdown(w io.Writer) error {
	for _, p := range r.Markdown() {
		if _, err := io.WriteString(w, p); err != nil {
			return err
		}
	}
	return nil
}

func (v Revision) label() string {
	if v.Commit != "" {
		return fmt.Sprintf("%s (%.12s)", v.Ref, v.Commit)
	}
	return v.Ref
}

func (s Summary) line() string {
	return fmt.Sprintf("%d apps, %d changed, %d predicted OutOfSync, %d Unknown, %d errors, %d not evaluated; %d resources changed (%d with hidden changes, %d immutable, %d removed)",
		s.Apps, s.Changed, s.OutOfSync, s.Unknown, s.Errors, s.NotEvaluated, s.Resources, s.Hidden, s.Immutable, s.Prunes)
}

func (r *Resource) title() string {
	gk := r.Kind
	if r.Group != "" {
		gk = r.Group + "/" + r.Kind
	}
	if r.Namespace != "" {
		return gk + " " + r.Namespace + "/" + r.Name
	}
	return gk + " " + r.Name
}

// flags are what a reviewer must not miss about r, in words.
func (r *Resource) flags() string {
	var fs []string
	if len(r.Hidden) > 0 {
		fs = append(fs, fmt.Sprintf("hidden by ignoreDifferences: %d fields", len(r.Hidden)))
	}
	if len(r.Immutable) > 0 {
		fs = append(fs, "immutable: "+strings.Join(r.Immutable, ", "))
	}
	if r.Prune != "" {
		fs = append(fs, "prune: "+r.Prune)
	}
	if r.Hook != "" {
		fs = append(fs, "hook: "+r.Hook)
	}
	if r.Redacted {
		fs = append(fs, "Secret: values redacted")
	}
	if len(fs) == 0 {
		return ""
	}
	return " [" + strings.Join(fs, "; ") + "]"
}

// Markdown is the report for a pull request comment, in parts of at most
// MaxCommentBytes each: the attention list and the summary table first,
// then one collapsed section per changed Application. A section that does
// not fit a part is split between resources; a diff that does not fit one
// part is cut at a line, saying so.
func (r *Report) Markdown() []string {
	max := r.MaxCommentBytes
	if max <= 0 {
		max = DefaultMaxCommentBytes
	}
	blocks := []string{r.head()}
	for _, a := range r.Apps {
		if a.Change == Unchanged && a.PredictedSync == Synced && !a.SpecChanged {
			continue
		}
		blocks = append(blocks, a.sections(max-1024)...)
	}
	var parts []string
	var cur strings.Builder
	for _, bl := range blocks {
		if cur.Len() > 0 && cur.Len()+len(bl) > max-256 {
			parts = append(parts, cur.String())
			cur.Reset()
		}
		cur.WriteString(bl)
	}
	parts = append(parts, cur.String())
	if len(parts) > 1 {
		for i := range parts {
			parts[i] = fmt.Sprintf("<!-- cmp-defaults preview: part %d of %d -->\n**cmp-defaults preview, part %d of %d**\n\n", i+1, len(parts), i+1, len(parts)) + parts[i]
		}
	}
	return parts
}

// head is the first block: the heading, what needs attention, the table.
func (r *Report) head() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### cmp-defaults preview: %s → %s\n\n", mdCode(r.Base.label()), mdCode(r.Head.label()))
	var att []string
	for _, a := range r.Apps {
		id := mdCode(a.Namespace + "/" + a.Name)
		switch {
		case a.Change == Failed:
			att = append(att, fmt.Sprintf("%s does not render: %s", id, mdText(strings.Join(a.Reasons, "; "))))
		case a.Change == NotEvaluated:
			att = append(att, fmt.Sprintf("%s is not evaluated: %s", id, mdText(strings.Join(a.Reasons, "; "))))
		case a.PredictedSync == OutOfSync:
			att = append(att, fmt.Sprintf("%s will be **OutOfSync**: admission adds %d fields it neither applies nor ignores (%s)", id, len(a.Drift), mdText(driftSample(a.Drift))))
		case a.PredictedSync == Unknown:
			att = append(att, fmt.Sprintf("%s sync status **Unknown**: %s", id, mdText(strings.Join(a.Reasons, "; "))))
		}
		for _, res := range a.Resources {
			if len(res.Hidden) > 0 {
				att = append(att, fmt.Sprintf("%s: %s changes fields an ignoreDifferences rule hides (%s)", id, mdCode(res.title()), mdText(res.Hidden[0].Path)))
			}
			if len(res.Immutable) > 0 {
				att = append(att, fmt.Sprintf("%s: %s changes immutable %s: the sync fails unless the resource is replaced", id, mdCode(res.title()), mdText(strings.Join(res.Immutable, ", "))))
			}
			if res.Prune != "" {
				att = append(att, fmt.Sprintf("%s: %s is removed (prune: %s)", id, mdCode(res.title()), res.Prune))
			}
		}
	}
	if len(att) > 0 {
		b.WriteString("**Attention**\n\n")
		for _, l := range att {
			b.WriteString("- " + l + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s\n\n", r.Summary.line())
	b.WriteString("| Application | Change | Predicted sync | Resources changed |\n|---|---|---|---|\n")
	for _, a := range r.Apps {
		fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", mdCode(a.Namespace+"/"+a.Name), a.Change, orDash(string(a.PredictedSync)), len(a.Resources))
	}
	b.WriteString("\n")
	return b.String()
}

func driftSample(d []Field) string {
	var s []string
	for i, f := range d {
		if i == 3 {
			s = append(s, fmt.Sprintf("%d more", len(d)-3))
			break
		}
		s = append(s, f.Resource+" "+f.Path)
	}
	return strings.Join(s, ", ")
}

// sections are the collapsed sections of one Application, each at most
// max bytes.
func (a *App) sections(max int) []string {
	open := fmt.Sprintf("<details><summary>%s %s: %s, %d resources</summary>\n\n", a.Kind, mdText(a.Namespace+"/"+a.Name), a.Change, len(a.Resources))
	if a.Parent != "" {
		open += fmt.Sprintf("Generated by %s. ", mdCode(a.Parent))
	}
	open += fmt.Sprintf("Written in %s.", mdCode(a.File))
	if len(a.Operators) > 0 {
		open += " Operators: " + mdCode(strings.Join(a.Operators, ", ")) + "."
	}
	open += "\n\n"
	const close = "</details>\n\n"
	var out []string
	cur := open
	for _, res := range a.Resources {
		s := res.markdown(max - len(open) - len(close))
		if len(cur)+len(s)+len(close) > max && cur != open {
			out = append(out, cur+close)
			cur = open
		}
		cur += s
	}
	return append(out, cur+close)
}

func (r *Resource) markdown(max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** %s%s\n\n", r.Change, mdCode(r.title()), mdText(r.flags()))
	if len(r.Filled) > 0 {
		var ps []string
		for _, f := range r.Filled {
			ps = append(ps, mdCode(f.Path))
		}
		fmt.Fprintf(&b, "Filled by admission (not shown as changes): %s\n\n", strings.Join(ps, ", "))
	}
	for _, h := range r.Hidden {
		fmt.Fprintf(&b, "Hidden: %s by %s\n\n", mdCode(h.Path), mdText(h.Rule))
	}
	if r.Diff != "" {
		d := r.Diff
		if len(d) > max-200 && max > 400 {
			cut := strings.LastIndexByte(d[:max-400], '\n') + 1
			d = d[:cut] + fmt.Sprintf("# ... cut here: %d more bytes of this diff do not fit the comment; the JSON report holds all of it\n", len(r.Diff)-cut)
		}
		fence := "```"
		for strings.Contains(d, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "%sdiff\n%s%s\n\n", fence, d, fence)
	}
	return b.String()
}

// mdCode is s as inline code, whatever backticks it holds.
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdText escapes what Markdown or HTML would read in text from a
// repository.
func mdText(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "<", "&lt;", ">", "&gt;", "|", "\\|", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "`", "\\`", "\n", " ")
	return r.Replace(s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
