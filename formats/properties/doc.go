// Package properties reads and writes Java .properties resource bundles,
// the reference's "properties" (ISO-8859-1 with \uXXXX escapes, the
// Latin1 codec) and "properties-utf8" (the UTF8 codec) file formats. Both
// are monolingual: a component's template (resources.properties) gives
// the source strings.
//
// What is read. A file is parsed as java.util.Properties.load does:
// natural lines end at "\n", "\r" or "\r\n"; lines whose first
// non-blank character is '#' or '!' are comments; a line ending in an
// odd number of backslashes continues on the next, whose leading
// whitespace is dropped; the key ends at the first unescaped '=', ':' or
// whitespace, and whitespace with at most one '=' or ':' separates it
// from the value; \t \n \r \f \\ and \uXXXX (surrogate pairs joined) are
// decoded in keys and values, and a backslash before any other character
// stands for that character ("\ ", "\=", "\:", "\#"). Each key is one
// formats.Unit: Context is the key, Target the value, Note the comment
// lines directly above the key (no blank line between, markers and one
// space stripped), Line the key's line. A repeated key is one unit at its
// last occurrence, whose value wins as in Java (translate-toolkit lists
// both: jitsi's resources_sk.properties repeats 7 keys, so we read 18,718
// units where SOURCE.md counts 18,725). The UTF-8 variant skips a
// leading byte order mark. A malformed \uXXXX escape, and invalid UTF-8
// in the UTF-8 variant, are a *formats.ParseError with line and column.
// Units carry no flags; the format's check flag, auto-java-messageformat,
// is in the formats registry.
//
// What is written. Codec.Apply replaces only the bytes of edited values,
// from the first character of the value to the end of its last line;
// an unchanged value is not touched, so its continuation lines and
// escapes stay. A changed value is written on one line, escaped as
// Properties.store does; the ISO-8859-1 variant writes non-ASCII
// characters as \uXXXX in the case of the file's own escapes (upper case,
// as Java and portfolio-performance write, when the file has none),
// keeping U+0080–U+00FF raw only in a file that already holds raw
// Latin-1 bytes; the UTF-8 variant writes characters raw. A key the file
// lacks is appended at the end with the separator of the file's last
// entry ("key = value" in portfolio-performance, "key=value" in jitsi),
// after a blank line where the file separates entries with blank lines.
// Codec.Remove deletes an entry's lines with the comment block above it.
// A new file (nil data) is "\n", the reference's new_translation;
// Codec.Emptied gives the template with every value emptied, what the
// reference writes when the template is also the base for new
// translations.
//
// Where we differ from the reference (translate-toolkit 3.8.4):
//   - repeated keys are one unit (see above);
//   - characters beyond U+FFFF are written as Java's surrogate-pair
//     escapes (\uD83D\uDE00); translate-toolkit writes an invalid
//     five-digit "\u1F600" and cannot read the pairs back;
//   - its Note is every comment since the previous entry, blank lines
//     included, with a file's header as a unit of its own; ours is the
//     block directly above the key, so a licence header is nobody's note.
//
// Start reading at Codec.Decode (properties.go), then Codec.Apply
// (encode.go). The package imports nothing of Tolk's but formats.
package properties
