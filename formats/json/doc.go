// Package json reads and writes monolingual key/value JSON translation
// files, flat ({"key": "value"}, as jellyfin-web) or nested
// ({"group": {"key": "value"}}, as Kavita's Transloco files). Importers
// alias it (for example tolkjson) because it shadows encoding/json.
//
// Decode validates the file with github.com/tidwall/gjson and walks it
// with gjson's ForEach, whose Results carry the byte offset (Index) and
// extent (Raw) of every key and value, and which unescapes strings. Each
// string leaf is one formats.Unit whose Context is its key, with the keys
// of the enclosing objects joined by "." ("menu.file"). The File keeps the source
// bytes, so Encode with no edits writes them back byte for byte, and Encode
// with edits replaces only the spans of the edited values: key order,
// indentation, odd spacing, blank lines and the final newline (or its
// absence) survive, and an edit shows up in git as a one-line diff.
//
// The rules the package chose, documented where they apply:
//   - non-string leaves (numbers, booleans, null, arrays) are validated and
//     skipped, not units (see File.Units);
//   - when keys repeat, the last occurrence wins, as in encoding/json and
//     JavaScript's JSON.parse (see File.Units);
//   - an edit whose context is not in the file is inserted at the end of the
//     right object, nested or flat by the rule on File.Encode;
//   - malformed input, including invalid UTF-8 and a top level that is not
//     an object, is a *formats.ParseError with a 1-based line and a column
//     counted in characters; so are objects nested more than 32 deep, which
//     bounds the memory hostile input can cost (see maxObjectDepth). gjson's
//     validator only answers yes or no, so for a file it rejects
//     encoding/json's SyntaxError.Offset gives the position (decode.go).
//
// The same File reads and writes the JSON dialects real projects use
// (dialect.go): i18next v4 with plural keys ("key_one", "key_few"),
// i18next v3 ("key"/"key_plural", "key_0"…),
// go-i18n v2 message objects and WebExtension messages.json. A dialect
// only maps units to members: a plural unit's forms to the keys of the
// language's CLDR plural categories (File.Plurals), a message's text and
// note to its object's fields. Reading and writing stay the walk and the
// span writer above, so every guarantee holds for them too.
//
// The package imports nothing of Tolk's but formats, and does no logging.
// Start reading at Decode (json.go), then the walk (decode.go),
// File.Encode (encode.go) and the dialects (dialect.go).
package json
