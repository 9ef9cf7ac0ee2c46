// Package formats defines what every translation file format shares: the
// Unit a file holds, the Edit a writer applies, the ParseError a parser
// reports, and the Codec through which sync reads and writes a format
// without knowing it. Each format lives in its own subpackage
// (formats/json, formats/tbx, …); formats/codecs maps each file_format
// name to its Codec.
//
// The Codec is the seam between sync and the formats: sync looks the
// component's codec up (codecs.Lookup), tells it the file's languages,
// and calls Decode at import, Apply and Remove at commit and download,
// and, through the optional Templater, Emptied for a new translation's
// file. Optional abilities are separate small interfaces a codec may
// implement: Templater, and PathLanguages for formats whose paths name
// a language in their own syntax (Android's values-pt-rBR). Adding a
// format is its subpackage, its row in the registry (formats.go) and
// one line in formats/codecs; sync does not change.
//
// formats imports nothing of Tolk's and knows nothing of SQL or git: it
// describes files, not rows. sync converts between the two.
package formats
