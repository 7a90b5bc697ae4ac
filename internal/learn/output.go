package learn

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/cmp-defaults/cmp-defaults/internal/operators"
)

// Output says where the results of a learning run go.
type Output struct {
	JSON   bool   // the profile as JSON instead of YAML
	Report string // also write the report as JSON to this file
	Write  string // write DIR/NAME_VERSION.yaml instead of printing the profile
}

// Written is what a learning run gives back: the encoded profile for
// stdout (none with Output.Write), and the text for stderr -- the report,
// then where the profile went.
type Written struct {
	Profile []byte
	Notes   string
}

// Write returns the report as text (and writes it as JSON to o.Report),
// then the profile p, encoded, or written into o.Write. An error when
// nothing was learned: no profile then, but the report.
func Write(rep *Report, p *operators.Profile, o Output) (Written, error) {
	var notes strings.Builder
	rep.WriteText(&notes)
	w := Written{Notes: notes.String()}
	if o.Report != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return w, err
		}
		if err := os.WriteFile(o.Report, append(b, '\n'), 0o644); err != nil {
			return w, fmt.Errorf("--report: %v", err)
		}
	}
	if rep.Learned.Objects == 0 {
		return w, fmt.Errorf("no object to learn from: every object was skipped (the report above says why)")
	}
	if p == nil {
		return w, fmt.Errorf("nothing learned: the cluster's admission adds no field that is the same for every object beyond the selected profiles; no profile written")
	}
	b, err := Encode(p, o.JSON)
	if err != nil {
		return w, err
	}
	if o.Write == "" {
		w.Profile = b
		return w, nil
	}
	target, err := operators.WriteProfile(o.Write, rep.Operator, rep.Version, b) // JSON is YAML too
	if err != nil {
		return w, err
	}
	if rep.Learned.Overrides != "" {
		w.Notes += fmt.Sprintf("wrote %s: %d learned rule(s) and the CRD schema defaults of %s; in a profiles directory (--profiles-dir, $CMP_DEFAULTS_PROFILES_DIR) it replaces that release\n", target, len(rep.Rules), rep.Learned.Overrides)
		return w, nil
	}
	w.Notes += fmt.Sprintf("wrote %s: %d rule(s) for %d kind(s)\n", target, len(rep.Rules), len(p.Resources))
	return w, nil
}

// Encode marshals a learned profile as YAML or JSON and checks that it
// loads as any user profile does.
func Encode(p *operators.Profile, asJSON bool) ([]byte, error) {
	var out []byte
	var err error
	if asJSON {
		if out, err = json.MarshalIndent(p, "", "  "); err == nil {
			out = append(out, '\n')
		}
	} else {
		out, err = operators.Marshal(p)
	}
	if err != nil {
		return nil, err
	}
	if _, err := operators.ParseProfile("learned profile", out); err != nil {
		return nil, fmt.Errorf("the learned profile does not validate (a bug, please report it): %v", err)
	}
	return out, nil
}

// ParseAs reads --as NAME@VERSION, the release the learned profile is
// selected by.
func ParseAs(as string) (name, version string, err error) {
	if as == "" {
		return "", "", fmt.Errorf("learn needs --as NAME@VERSION: the operator name and version the learned profile is selected by (e.g. prod-webhooks@2026.12.1)")
	}
	if name, version, err = operators.ParseRef(as); err != nil {
		return "", "", fmt.Errorf("--as: %v", err)
	}
	if err := operators.CheckName(name); err != nil {
		return "", "", fmt.Errorf("--as: %v", err)
	}
	return name, version, nil
}
