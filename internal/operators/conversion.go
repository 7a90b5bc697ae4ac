package operators

import (
	"fmt"
	"strings"
)

// ConversionMessage says, for a kind the release stores in another version
// through its conversion webhook, which storage-version defaults the API
// server may add when it reads the object back: the webhook decides which
// come back, so they are not filled. "" when there are none.
func (r *Resolution) ConversionMessage(apiVersion, kind string) string {
	if r.Profile == nil {
		return ""
	}
	for i := range r.Profile.Resources {
		rs := &r.Profile.Resources[i]
		if rs.Kind != kind || rs.APIVersion() != apiVersion || rs.Conversion != ConversionWebhook || len(rs.ReadDefaults) == 0 {
			continue
		}
		paths := make([]string, 0, 4)
		for _, d := range rs.ReadDefaults[:min(4, len(rs.ReadDefaults))] {
			paths = append(paths, d.Path)
		}
		fields := strings.Join(paths, ", ")
		if n := len(rs.ReadDefaults) - len(paths); n > 0 {
			fields += fmt.Sprintf(" and %d more", n)
		}
		storage := rs.StorageVersion
		if rs.Group != "" {
			storage = rs.Group + "/" + storage
		}
		return fmt.Sprintf("%s@%s stores %s %s as %s through its conversion webhook; the API server adds %s's defaults when it reads the object back and the webhook decides which of them come back, so they are not filled: Argo CD may show %s as drift; write the object as %s to have them filled",
			r.Operator, strings.TrimPrefix(r.Requested, "v"), apiVersion, kind, storage, rs.StorageVersion, fields, storage)
	}
	return ""
}
