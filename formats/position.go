package formats

import (
	"bytes"
	"unicode/utf8"
)

// ErrorAt returns err as a ParseError at byte offset off of src (clamped
// to src): its 1-based line, and its column counted in characters, not
// bytes, as an editor shows it.
func ErrorAt(src []byte, off int, err error) *ParseError {
	off = max(0, min(off, len(src)))
	lineStart := bytes.LastIndexByte(src[:off], '\n') + 1
	return &ParseError{
		Line:   bytes.Count(src[:off], []byte{'\n'}) + 1,
		Column: utf8.RuneCount(src[lineStart:off]) + 1,
		Err:    err,
	}
}

// Lines turns increasing byte offsets of a file into 1-based line numbers
// without rescanning from the start each time, for decoders that record
// the line of every unit.
type Lines struct {
	src  []byte
	pos  int
	line int
}

// NewLines counts the lines of src.
func NewLines(src []byte) Lines { return Lines{src: src, line: 1} }

// At returns the line of byte offset off. Offsets must not decrease
// from one call to the next: an earlier one answers the line of the
// latest.
func (l *Lines) At(off int) int {
	if off > l.pos {
		l.line += bytes.Count(l.src[l.pos:off], []byte{'\n'})
		l.pos = off
	}
	return l.line
}

// RawElementName returns the name of the XML tag that starts at src[start]
// ('<') as written, prefix included: encoding/xml resolves prefixes to
// namespaces, and a writer that adds or matches a tag needs the bytes.
func RawElementName(src []byte, start int) string {
	for i := start + 1; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\n', '\r', '/', '>':
			return string(src[start+1 : i])
		}
	}
	return string(src[start+1:])
}
