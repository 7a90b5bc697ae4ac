package main

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"
)

func init() {
	extraCommands = append(extraCommands, (*cli).parametersCmd)
}

// parameterAnnouncement is one entry of the JSON array that Argo CD reads
// from a plugin's parameters.dynamic command. Field names and meanings are
// those of ParameterAnnouncement in argo-cd's reposerver/apiclient
// (repository.proto); Argo CD ignores fields it does not know.
type parameterAnnouncement struct {
	Name           string            `json:"name"`
	Title          string            `json:"title,omitempty"`
	Tooltip        string            `json:"tooltip,omitempty"`
	Required       bool              `json:"required,omitempty"`
	ItemType       string            `json:"itemType,omitempty"`
	CollectionType string            `json:"collectionType,omitempty"` // string (default), array or map
	String         string            `json:"string,omitempty"`
	Array          []string          `json:"array,omitempty"`
	Map            map[string]string `json:"map,omitempty"`
}

func (c *cli) parametersCmd() *cobra.Command {
	var o common
	cmd := &cobra.Command{
		Use:   "parameters",
		Short: "Print the parameter announcement for the Argo CD UI (JSON array)",
		Long: `Prints the JSON array of parameter announcements that Argo CD reads from the plugin's
parameters.dynamic command (plugin.yaml). The Application's parameter form then offers
the operators known to this sidecar -- shipped profiles plus those in
$CMP_DEFAULTS_PROFILES_DIR -- each with its newest checked release, and the Helm settings.

Announced values are suggestions shown in the UI; generate receives only the parameters
that the Application sets.`,
		Example: "  cmp-defaults parameters\n  CMP_DEFAULTS_PROFILES_DIR=/home/argocd/cmp-defaults/profiles cmp-defaults parameters",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := o.store()
			if err != nil {
				return err
			}
			sums, err := st.Summaries()
			if err != nil {
				return err
			}
			ops := map[string]string{}
			for _, s := range sums {
				if s.Newest != "" {
					ops[s.Operator] = strings.TrimPrefix(s.Newest, "v")
				}
			}
			out, err := json.MarshalIndent(parameterAnnouncements(ops), "", "  ")
			if err != nil {
				return err
			}
			_, err = c.out.Write(append(out, '\n'))
			return err
		},
	}
	cmd.Flags().StringArrayVar(&o.profileDirs, "profiles-dir", nil, "directory of extra or overriding profiles (repeatable; default $CMP_DEFAULTS_PROFILES_DIR, colon-separated)")
	return cmd
}

// parameterAnnouncements lists every parameter generate reads. ops are the known
// operators with their newest checked release.
func parameterAnnouncements(ops map[string]string) []parameterAnnouncement {
	return []parameterAnnouncement{
		{
			Name:           "operators",
			Title:          "Operator releases",
			Tooltip:        "Operator releases running in the destination cluster, NAME: VERSION (e.g. external-secrets: 2.5.0). Their admission defaults are filled into the manifests. Shown: every known operator with its newest checked release; set the releases your cluster runs and leave the others empty. Wins over the plugin env CMP_DEFAULTS_OPERATORS.",
			CollectionType: "map",
			Map:            ops,
		},
		{
			Name:           "values-files",
			Title:          "Helm values files",
			Tooltip:        "Helm sources: values files relative to the application path, applied in order (they must stay inside the repository).",
			CollectionType: "array",
		},
		{
			Name:           "values",
			Title:          "Helm values (YAML)",
			Tooltip:        "Helm sources: inline values as a YAML document, applied after the values files.",
			CollectionType: "string",
		},
		{
			Name:           "set",
			Title:          "Helm --set",
			Tooltip:        "Helm sources: KEY: VALUE pairs applied like helm --set, after the values files and inline values.",
			CollectionType: "map",
		},
		{
			Name:           "release-name",
			Title:          "Helm release name",
			Tooltip:        "Helm sources: the release name; defaults to the Application name.",
			CollectionType: "string",
		},
		{
			Name:           "namespace",
			Title:          "Helm release namespace",
			Tooltip:        "Helm sources: .Release.Namespace; defaults to the Application's destination namespace.",
			CollectionType: "string",
		},
		{
			Name:           "allow-empty",
			Title:          "Allow an empty result",
			Tooltip:        "Set to true only if rendering zero manifests is intended. Otherwise generate fails on an empty result, because with prune: true an empty result deletes every resource of the application.",
			ItemType:       "boolean",
			CollectionType: "string",
			String:         "false",
		},
	}
}
