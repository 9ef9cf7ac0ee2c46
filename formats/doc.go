// Package formats defines what every translation file format shares: the
// Unit a file holds, the Edit a writer applies, the ParseError a parser
// reports, and the Codec through which sync reads and writes a format
// without knowing it. Each format lives in its own subpackage
// (formats/json, formats/tbx, …); formats/codecs maps each file_format
// name to its Codec.
//
// formats imports nothing of Tolk's and knows nothing of SQL or git: it
// describes files, not rows. sync converts between the two.
package formats
