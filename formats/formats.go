package formats

import "fmt"

// Unit is one translatable entry as a file holds it.
type Unit struct {
	// Context identifies the unit inside its file: the (flattened) key of
	// a JSON file, the termEntry id of a TBX file.
	Context string
	// Source holds the source text, one element per plural form. Empty
	// for monolingual files, whose source comes from the template.
	Source []string
	// Target holds the translation, one element per plural form. A single
	// empty string means untranslated.
	Target []string
	// Note and Explanation are free text kept with the unit.
	Note        string
	Explanation string
	// Flags are unit flags such as "read-only" or "forbidden".
	Flags []string
	// Line is the 1-based line the unit starts on, 0 if unknown.
	Line int
	// Location is where the string is used, as the file says (PO's "#:"
	// references, comma-separated); "" if the format has none.
	Location string
	// Fuzzy marks a translation the file says needs editing (PO's
	// "#, fuzzy", XLIFF's state="needs-translation"…): state 10.
	Fuzzy bool
	// Approved marks a translation the file says was reviewed (XLIFF's
	// approved="yes", state="final"): state 30 where review is on.
	Approved bool
}

// Edit replaces the target of the unit with the given context (and
// source, in bilingual formats).
type Edit struct {
	Context string
	// Source is the unit's source, one element per plural form: the key
	// of a bilingual format's unit (with Context), and what a unit the
	// file lacks is added with. Monolingual formats ignore it.
	Source []string
	Target []string
	// Fuzzy and Approved are the unit's state as formats that record
	// one write it (PO's "#, fuzzy", XLIFF's state attributes).
	Fuzzy, Approved bool
	// Plural says the unit has plural forms (its source has several). A
	// format that keeps each form under a key of its own (i18next,
	// go-i18n) then writes Target[i] under the i-th plural category of the
	// file's language, even when that language has a single form. Other
	// formats ignore it.
	Plural bool
}

// Format describes a file format Tolk reads and writes, by the
// reference's file_format name.
type Format struct {
	// Name is the reference's file_format identifier.
	Name string
	// Monolingual formats hold keys and translations only: a component
	// of one needs a template, which gives the source strings. The others
	// (TBX) hold source and target side by side and take no template.
	Monolingual bool
	// TemplateOptional says a bilingual format may also be used with a
	// template, which then gives the source strings and unit keys, as
	// the reference allows for XLIFF (its monolingual is None: either).
	TemplateOptional bool
	// Plurals says the format's units may have plural forms.
	Plurals bool
	// ContentType and Extension are what a download of a file of the
	// format is served as, from the reference's format classes.
	ContentType string
	Extension   string
	// OneFile says one file holds every language (Apple's String
	// Catalog): the component's filemask is that file's path, without a
	// `*`, and the codec is a FileLanguages. The reference has no such
	// format (its multi-language files, TBX and CSV, are read one
	// language per file); Tolk reads one the way Xcode does.
	OneFile bool
	// ZeroPlural says the format's files give every language a "zero"
	// plural form in front of its own (.stringsdict), as the reference
	// does for it (its StringsdictFormat.get_plural): a translation of
	// such a component has one form more than its language.
	ZeroPlural bool
	// Flags are the check flags every unit of the format has
	// (reference §1.5: i18next's "i18next-interpolation", Android's
	// "java-printf-format"), in the flag syntax. "xml-text" says the
	// format's strings are XML content (text escaped, inline elements
	// kept: the XLIFF placeables variants), which the index reads to
	// share strings only between formats that store text alike
	// (docs/propagation.md).
	Flags string
}

// registry lists the formats, in the order the API names them.
var registry = []Format{
	{Name: "json", Monolingual: true, ContentType: "application/json; charset=utf-8", Extension: ".json"},
	// i18next: JSON v3, the reference's I18NextFormat ("i18next JSON file
	// v3"); i18nextv4 is its I18NextV4Format.
	{Name: "i18next", Monolingual: true, Plurals: true, ContentType: "application/json; charset=utf-8", Extension: ".json", Flags: "i18next-interpolation"},
	{Name: "i18nextv4", Monolingual: true, Plurals: true, ContentType: "application/json; charset=utf-8", Extension: ".json", Flags: "i18next-interpolation"},
	{Name: "go-i18n-json", Monolingual: true, Plurals: true, ContentType: "application/json; charset=utf-8", Extension: ".json"},
	{Name: "go-i18n-json-v2", Monolingual: true, Plurals: true, ContentType: "application/json; charset=utf-8", Extension: ".json"},
	{Name: "webextension", Monolingual: true, ContentType: "application/json; charset=utf-8", Extension: ".json"},
	{Name: "tbx", ContentType: "application/x-tbx", Extension: ".tbx"},
	// PO: the first of Translate Toolkit's pofile.Mimetypes, which the
	// reference serves; flags come per unit from "#," lines.
	{Name: "po", Plurals: true, ContentType: "text/x-gettext-catalog", Extension: ".po"},
	{Name: "po-mono", Monolingual: true, Plurals: true, ContentType: "text/x-gettext-catalog", Extension: ".po"},
	{Name: "aresource", Monolingual: true, Plurals: true, ContentType: "application/xml", Extension: ".xml", Flags: "java-printf-format"},
	{Name: "xliff", TemplateOptional: true, ContentType: "application/x-xliff+xml", Extension: ".xlf", Flags: "xml-text"},
	// plainxliff and poxliff: the reference's XliffFormat ("XLIFF 1.2
	// translation file", strings as text) and PoXliffFormat ("XLIFF 1.2
	// with gettext extensions", plural groups), both read by the xliff
	// codec; xliff is its RichXliffFormat.
	{Name: "plainxliff", TemplateOptional: true, ContentType: "application/x-xliff+xml", Extension: ".xlf"},
	{Name: "poxliff", TemplateOptional: true, Plurals: true, ContentType: "application/x-xliff+xml", Extension: ".xlf", Flags: "xml-text"},
	{Name: "xliff2", TemplateOptional: true, ContentType: "application/x-xliff+xml", Extension: ".xlf", Flags: "xml-text"},
	{Name: "strings", Monolingual: true, ContentType: "text/plain", Extension: ".strings", Flags: "objc-format"},
	{Name: "strings-utf8", Monolingual: true, ContentType: "text/plain", Extension: ".strings", Flags: "objc-format"},
	{Name: "stringsdict", Monolingual: true, Plurals: true, ZeroPlural: true, ContentType: "application/xml", Extension: ".stringsdict", Flags: "objc-format"},
	{Name: "properties", Monolingual: true, ContentType: "text/plain; charset=iso-8859-1", Extension: ".properties", Flags: "auto-java-messageformat"},
	{Name: "properties-utf8", Monolingual: true, ContentType: "text/plain; charset=utf-8", Extension: ".properties", Flags: "auto-java-messageformat"},
	{Name: "arb", Monolingual: true, ContentType: "application/json; charset=utf-8", Extension: ".json", Flags: "icu-message-format"}, // ARBFormat inherits JSONFormat.extension
	{Name: "yaml", Monolingual: true, ContentType: "text/yaml; charset=utf-8", Extension: ".yml"},
	{Name: "ruby-yaml", Monolingual: true, Plurals: true, ContentType: "text/yaml; charset=utf-8", Extension: ".yml"},
	// xcstrings: Apple's String Catalog, Tolk's own name (the reference
	// has none; see formats/xcstrings). Bilingual: the source is in the
	// file.
	{Name: "xcstrings", Plurals: true, OneFile: true, ContentType: "application/json; charset=utf-8", Extension: ".xcstrings", Flags: "objc-format"},
}

// All returns every format Tolk reads and writes. The caller owns the
// slice.
func All() []Format { return append([]Format(nil), registry...) }

// Lookup returns the format with the given file_format name; ok is false
// when Tolk does not know it.
func Lookup(name string) (f Format, ok bool) {
	for _, f := range registry {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// FlagsOf returns the check flags every unit of the named format has
// (Format.Flags), "" for a format Tolk does not know: what the index's
// checks take as sqlstore.Options.FormatFlags.
func FlagsOf(name string) string {
	f, _ := Lookup(name)
	return f.Flags
}

// ZeroPluralOf says the named format gives every language a zero form
// (Format.ZeroPlural); false for a format Tolk does not know.
func ZeroPluralOf(name string) bool {
	f, _ := Lookup(name)
	return f.ZeroPlural
}

// ParseError reports where a file could not be parsed.
type ParseError struct {
	Line, Column int // 1-based; 0 when unknown
	Err          error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }
