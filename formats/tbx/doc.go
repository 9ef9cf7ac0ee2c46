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
// Which library does what, and why:
//   - encoding/xml parses (Decode, tbx.go). Its InputOffset gives the byte
//     span of every termEntry, langSet and term in the same single pass
//     that validates the document; etree keeps no offsets and would need
//     a second parse to find them.
//   - The span writer (encode.go, remove.go) changes the file's bytes:
//     Encode with no edits writes them back unchanged, an edited term's
//     text is replaced in place (an edit is a one-line diff), and
//     EncodeWithout cuts removed termEntries out, with their lines when
//     they stand alone on them. Removal creates no markup, so it stays a
//     pure deletion; re-serializing the whole tree through etree would
//     rewrite quoting, entities and white space all over the file.
//   - github.com/beevik/etree builds every piece of markup Tolk creates
//     (build.go): the new file New starts from (as Translate Toolkit lays
//     one out), a new termEntry for a term the file lacks (EncodeTerms
//     with Edit.Add), the langSet of a language a term did not have and a
//     tig in a langSet without one. The span writer then places the
//     serialized element in the file, laid out like its neighbours, so
//     the rest of the file keeps its bytes.
//
// The package imports nothing of Tolk's but formats, and does no logging.
// Start reading at Decode (tbx.go), then File.Units (units.go),
// File.Encode (encode.go) and File.EncodeWithout (remove.go).
package tbx
