// Package formats defines what every translation file format shares: the
// Unit a file holds, the Edit a writer applies and the ParseError a parser
// reports. Each format lives in its own subpackage (formats/json,
// formats/tbx) with a Decode over an io.Reader and an Encode over an
// io.Writer.
//
// formats imports nothing of Tolk's and knows nothing of SQL or git: it
// describes files, not rows. sync converts between the two.
package formats
