package operators

import (
	"fmt"
	"slices"
	"strings"
)

// What is known of the defaults a release's mutating webhooks write.
const (
	// WebhookLearned: the mutations were learned from the release's own
	// code (or a user's profile has mutations of its own).
	WebhookLearned = "learned"
	// WebhookNone: the profile names no mutating webhook.
	WebhookNone = "none"
	// WebhookUnknown: the profile names a webhook, and what it writes was
	// not learned for this release: its defaults are not filled.
	WebhookUnknown = "unknown"
)

// WebhookState says what is known of the webhook defaults of a release
// whose profile is p and whose index entry says mutations ("learned from
// MODULE@VERSION" or "none learned"): learned (from names where from),
// none or unknown.
func WebhookState(p *Profile, mutations string) (state, from string) {
	from, learned := strings.CutPrefix(mutations, "learned from ")
	if !learned {
		from = ""
	}
	hooked := false
	for _, rs := range p.Resources {
		if len(rs.Mutations) > 0 {
			return WebhookLearned, from
		}
		hooked = hooked || rs.Webhook != ""
	}
	switch {
	case !hooked:
		return WebhookNone, ""
	case learned:
		return WebhookLearned, from
	}
	return WebhookUnknown, ""
}

// UnknownWebhook names the webhook of r's release that matches apiVersion
// and kind when what it writes is not known (WebhookUnknown); "" when it
// is known or there is none.
func (r *Resolution) UnknownWebhook(apiVersion, kind string) string {
	if r == nil {
		return ""
	}
	for _, rs := range r.Profile.Resources {
		if rs.Kind == kind && rs.APIVersion() == apiVersion && (r.Webhooks == WebhookUnknown || rs.WebhookUnknown) {
			return rs.Webhook
		}
	}
	return ""
}

// NearestLearned is the checked release of r's operator nearest to it
// whose webhook defaults were learned, the older one on a tie; nil when
// there is none.
func (s *Store) NearestLearned(r *Resolution) *Resolution {
	rels, err := s.Releases(r.Operator)
	if err != nil {
		return nil
	}
	at := 0
	for i, rel := range rels {
		if CompareVersions(rel.Version, r.Requested) <= 0 {
			at = i
		}
	}
	best := -1
	for i, rel := range rels {
		if !strings.HasPrefix(rel.Mutations, "learned from ") {
			continue
		}
		if best < 0 || abs(i-at) < abs(best-at) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	n, err := s.Resolve(r.Operator, rels[best].Version, false)
	if err != nil {
		return nil
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// UnknownWebhookMessage says, for objects of apiVersion and kind, that the
// webhook of r's release writes defaults that are not known, which
// release nearest to it has them, and which fields will drift.
func (s *Store) UnknownWebhookMessage(r *Resolution, apiVersion, kind string) string {
	hook := r.UnknownWebhook(apiVersion, kind)
	if hook == "" {
		return ""
	}
	ref := r.Operator + "@" + strings.TrimPrefix(r.Requested, "v")
	msg := fmt.Sprintf("%s's mutating webhook %s adds defaults to %s %s, and what it adds was not learned for this release, so they are not filled: Argo CD will show the fields it adds as drift", ref, hook, apiVersion, kind)
	n := s.NearestLearned(r)
	if n == nil {
		return msg + "; no checked release of " + r.Operator + " has learned webhook defaults (docs/webhooks.md)"
	}
	var paths []string
	for _, rs := range n.Profile.Resources {
		if rs.Kind == kind && rs.APIVersion() == apiVersion && rs.WebhookUnknown {
			return msg + "; no checked release of " + r.Operator + " has learned its webhook defaults for this kind (docs/webhooks.md)"
		}
		if rs.Kind == kind && rs.APIVersion() == apiVersion {
			for _, m := range rs.Mutations {
				if !slices.Contains(paths, m.Path) {
					paths = append(paths, m.Path)
				}
			}
		}
	}
	msg += fmt.Sprintf("; the nearest release with learned webhook defaults is %s", n.Operator+"@"+strings.TrimPrefix(n.Requested, "v"))
	switch {
	case len(paths) > 4:
		msg += fmt.Sprintf(", whose webhook adds %s and %d more to these objects", strings.Join(paths[:4], ", "), len(paths)-4)
	case len(paths) > 0:
		msg += ", whose webhook adds " + strings.Join(paths, ", ") + " to these objects"
	}
	return msg + " (docs/webhooks.md)"
}
