// Package tbx reads and writes TBX (TermBase eXchange) glossaries, the
// format of Weblate glossary components.
//
// A TBX file as Weblate (through Translate Toolkit) writes it is bilingual:
// every termEntry holds one langSet per language, each with a tig/term (or
// ntig/termGrp/term). A glossary component has one file per target
// language, and every file repeats the source-language term. Each termEntry
// is one formats.Unit, in document order; its Context is the termEntry's id
// attribute, so (Source, Context) and not Context alone identifies a unit.
//
// Decode keeps the original bytes. Encode writes them back unchanged and
// replaces only the byte span of each edited term, so a file round-trips
// byte for byte and an edit shows up in git as a one-line diff.
// EncodeWithout takes termEntries out the same way: only their bytes (and
// their lines, when they stand alone on them) go. Parsing uses
// encoding/xml, whose InputOffset gives those spans in the same single pass
// that validates the document; etree keeps no offsets and would need a
// second parse (and it is not in go.mod).
//
// The package imports nothing of Tolk's but formats, and does no logging.
// Start reading at Decode (tbx.go), then File.Units (units.go),
// File.Encode (encode.go) and File.EncodeWithout (remove.go).
package tbx
