// Package xliff reads and writes XLIFF 1.2 and 2.0 translation files: the
// reference's file formats "xliff" (XLIFF 1.2 with placeables support,
// weblate/formats/ttkit.py RichXliffFormat) and "xliff2" (XLIFF 2.0 in
// its placeables mode; Weblate 2026.9 folded "xliff2-placeables" into
// "xliff2" with an xliff_placeables parameter). Use the XLIFF and XLIFF2
// codecs; each rejects a file of the other version with a ParseError.
//
// What is read (Codec.Decode, parse.go, states.go):
//   - 1.2: every <trans-unit>, at any depth under <file> (inside <group>s
//     too), in every <file>. Context is resname, else "original///id"
//     (id alone without an original), as ttkit.py XliffUnit.context.
//   - 2.0: every <segment> of every <unit>. Context is the unit id for a
//     unit of one segment and "unit::segment" or "unit::segment-N" for a
//     unit of several, as Translate Toolkit's xliff2 storage names them.
//   - Source and Target are the content of <source> and <target> as XML:
//     inline elements (<x/>, <g>, <ph>, <pc>, <bpt>…) exactly as written,
//     text with &, < and > escaped, comments dropped. That is what the
//     reference shows for the placeables variants (rich_to_xliff_string)
//     and why every unit carries the "xml-text" flag. White space is kept
//     byte for byte: pkspot's padded Angular sources read " About ". The
//     reference collapses white space outside xml:space="preserve"; we do
//     not, because the writer never rewrites a string it did not edit and
//     an edit must read back as it was written.
//   - States: see states.go (1.2 needs-review-* is translated, as in the
//     reference; 2.0 "initial" with a target is fuzzy, so pkspot's
//     translations read as needing edit, as the reference shows them).
//   - Notes: 1.2 <note> children; 2.0 <notes><note>, except category
//     "location", which with 1.2 context-group purpose="location" gives
//     Location. Flags: xml-text, then maxwidth/size-unit, font and
//     weblate-flags attributes, read-only for translate="no".
//   - No plurals (but in POXLIFF): a string is one form (pkspot's ICU plurals stay inside
//     one string). Units with an empty source are returned; the importer
//     decides, where the reference drops them (XliffUnit.has_content).
//
// What is written (Codec.Apply, Remove, Emptied; write.go, patch.go):
// encoding/xml's InputOffset gives every element's byte span in the one
// pass that validates the document, and the writer patches those bytes:
// an edited target's content, a state attribute's value, a removed unit's
// lines (with the one-line comments right above it). An edit that writes
// back what the file holds changes nothing. Everything else keeps its bytes (declarations, quoting, entity
// spelling, attribute order, indentation). An edit's target is written as
// markup when it is well-formed XML content (a unit string as Decode
// returns it) and escaped otherwise, the reference's fallback. New
// targets, units and documents are built as text in the file's
// indentation and line ending.
//
// Deliberate differences from the reference: state attributes change only
// when the edit's state differs from the file's (the reference rewrites
// state="translated" on every save); an edit never rewrites <source>
// (the reference copies the template's source into a monolingual
// translation); XLIFF 2.0's plain-text mode is not implemented.
//
// Variants of 1.2 (xliff.go): PlainXLIFF ("plainxliff") reads and writes
// strings as text rather than XML; POXLIFF ("poxliff") reads po2xliff's
// gettext plural groups as plural units and skips the gettext header.
//
// The package imports nothing of Tolk's but formats, and does no logging.
// Start reading at Codec.Decode (xliff.go), then parse (parse.go) and
// Codec.Apply (write.go).
package xliff
