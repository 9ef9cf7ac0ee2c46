package servertest

import (
	"github.com/tolk-project/tolk/api"
	"github.com/tolk-project/tolk/formats"
)

// FileFormats is the formats registry as cmd/tolk hands it to the API
// (apiFileFormats), for tests of formats beyond api's default two.
func FileFormats() []api.FileFormat {
	var out []api.FileFormat
	for _, f := range formats.All() {
		out = append(out, api.FileFormat{Name: f.Name, Monolingual: f.Monolingual, TemplateOptional: f.TemplateOptional,
			OneFile: f.OneFile, ContentType: f.ContentType, Extension: f.Extension})
	}
	return out
}
