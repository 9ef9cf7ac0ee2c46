// Package arb reads and writes Flutter's Application Resource Bundle
// files (lib/l10n/intl_de.arb), the reference's "arb" file format: a
// monolingual JSON object of messages, each optionally followed by an
// "@key" metadata object, plus "@@" globals.
//
// What is read. Every top-level key without a leading "@" is one
// formats.Unit: Context is the key, Target its string value, Note the
// "description" of its "@key" object (translate-toolkit's ARBJsonFile
// reads it as the unit's notes, which the reference shows as the string's
// note; the reference's explanation is its own database field). ICU
// plural and select syntax ("{count, plural, =1{…} other{…}}") stays
// inside the one string: ARB has no plural forms of its own, and the
// format's check flag, icu-message-format (in the formats registry),
// lets the checks read it. Globals ("@@locale", "@@last_modified") and
// metadata objects are no units. translate-toolkit 3.8.4 also counts one
// header unit per file with globals (769 units in fluffychat's template,
// 768 messages); its current ARBJsonFile keeps them as a header, which
// is what they are: @@last_modified is a timestamp nobody translates.
// A message whose value is a number is skipped; one holding an object,
// array, boolean or null is a *formats.ParseError, as in
// translate-toolkit. A repeated key is one unit at its last occurrence,
// as in JSON.parse.
//
// What is written. The package writes through formats/json's File
// (imported as tolkjson, unchanged), so it keeps that writer's
// guarantees: Apply replaces only the bytes of edited values, keeps
// key order, indentation, the metadata objects (placeholders, types,
// descriptions, the three malformed ones in fluffychat's template) and
// the final newline or its absence, and adds a message the file lacks
// after the last top-level member in the file's indentation. Remove
// takes a message out with its "@key" object. A new file (nil data) is
// "{}\n", the reference's new_translation; Emptied gives the template
// with every message emptied and "@@locale" set to the new language.
//
// Where we differ from the reference: an added message gets no "@key"
// object (the reference copies the template's; a Codec does not see the
// template, and Flutter's gen-l10n reads metadata from the template
// only), and units carry no per-unit placeholders flag: the reference's
// PlaceholdersJSONUnit would turn ARB placeholders into WebExtension-style
// "$NAME$" flags, which ARB text never contains; icu-message-format
// checks the {name} placeholders instead.
//
// Start reading at Codec.Decode (arb.go), then Codec.Apply (encode.go).
// The package imports formats, formats/json and gjson.
package arb
