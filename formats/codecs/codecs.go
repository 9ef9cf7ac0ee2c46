// Package codecs maps each file_format name to the formats.Codec that
// reads and writes it. It is the one place that knows every format
// package: sync asks Lookup and never imports a format itself, so a new
// format is its package plus one line in codecs below (and its row in
// formats' registry, which TestRegistry checks against this map).
package codecs

import (
	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/android"
	"github.com/tolk-project/tolk/formats/apple"
	"github.com/tolk-project/tolk/formats/arb"
	jsonfmt "github.com/tolk-project/tolk/formats/json"
	"github.com/tolk-project/tolk/formats/po"
	"github.com/tolk-project/tolk/formats/properties"
	"github.com/tolk-project/tolk/formats/tbx"
	"github.com/tolk-project/tolk/formats/xcstrings"
	"github.com/tolk-project/tolk/formats/xliff"
	tolkyaml "github.com/tolk-project/tolk/formats/yaml"
)

// codecs holds one line per file_format name of formats.All.
var codecs = map[string]formats.Codec{
	"json":            jsonfmt.Codec{Dialect: jsonfmt.Plain},
	"i18next":         jsonfmt.Codec{Dialect: jsonfmt.I18nextV3},
	"i18nextv4":       jsonfmt.Codec{Dialect: jsonfmt.I18nextV4},
	"go-i18n-json":    jsonfmt.Codec{Dialect: jsonfmt.GoI18n},
	"go-i18n-json-v2": jsonfmt.Codec{Dialect: jsonfmt.GoI18n},
	"webextension":    jsonfmt.Codec{Dialect: jsonfmt.WebExtension},
	"tbx":             tbx.Codec{},
	"po":              po.Codec{},
	"po-mono":         po.Codec{Monolingual: true},
	"aresource":       android.Codec{},
	"xliff":           xliff.XLIFF,
	"plainxliff":      xliff.PlainXLIFF,
	"poxliff":         xliff.POXLIFF,
	"xliff2":          xliff.XLIFF2,
	"strings":         apple.Strings,
	"strings-utf8":    apple.StringsUTF8,
	"stringsdict":     apple.Stringsdict,
	"properties":      properties.Latin1,
	"properties-utf8": properties.UTF8,
	"arb":             arb.Codec{},
	"yaml":            tolkyaml.Plain,
	"ruby-yaml":       tolkyaml.Ruby,
	"xcstrings":       xcstrings.Codec{},
}

// Lookup returns the codec of a file_format name; ok is false for a
// name Tolk does not read. A Codec is safe for concurrent use.
func Lookup(fileFormat string) (c formats.Codec, ok bool) {
	c, ok = codecs[fileFormat]
	return c, ok
}

// Names returns the file_format names that have a codec, in no order.
func Names() []string {
	out := make([]string, 0, len(codecs))
	for name := range codecs {
		out = append(out, name)
	}
	return out
}
