package apple

import (
	"errors"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// encoding is how a .strings file's characters are stored. Tolk works on
// the text as UTF-8 and encodes it back the same way, so an edit changes
// only the edited value's bytes in any of them.
type encoding uint8

const (
	encUTF8      encoding = iota // no byte order mark
	encUTF8BOM                   // EF BB BF
	encUTF16LE                   // FF FE, what the reference writes
	encUTF16BE                   // FE FF
	encUTF16LENo                 // little-endian without a byte order mark
	encUTF16BENo                 // big-endian without a byte order mark
)

// bom returns the byte order mark the encoding starts a file with.
func (e encoding) bom() string {
	switch e {
	case encUTF8BOM:
		return "\xEF\xBB\xBF"
	case encUTF16LE:
		return "\xFF\xFE"
	case encUTF16BE:
		return "\xFE\xFF"
	}
	return ""
}

func (e encoding) utf16() bool { return e >= encUTF16LE }

// decodeText returns the text of a .strings file as UTF-8 without its byte
// order mark. A file without a mark is UTF-16 when its first two bytes
// hold a NUL (an ASCII character in UTF-16, as every .strings file starts
// with), and UTF-8 otherwise.
func decodeText(data []byte) (string, encoding, error) {
	enc := encUTF8
	switch {
	case len(data) >= 3 && string(data[:3]) == "\xEF\xBB\xBF":
		enc = encUTF8BOM
	case len(data) >= 2 && string(data[:2]) == "\xFF\xFE":
		enc = encUTF16LE
	case len(data) >= 2 && string(data[:2]) == "\xFE\xFF":
		enc = encUTF16BE
	case len(data) >= 2 && data[1] == 0 && data[0] != 0:
		enc = encUTF16LENo
	case len(data) >= 2 && data[0] == 0 && data[1] != 0:
		enc = encUTF16BENo
	}
	body := data[len(enc.bom()):]
	if !enc.utf16() {
		if !utf8.Valid(body) {
			return "", enc, invalidUTF8(body)
		}
		return string(body), enc, nil
	}
	odd := len(body)%2 != 0
	units := make([]uint16, len(body)/2)
	be := enc == encUTF16BE || enc == encUTF16BENo
	for i := range units {
		if be {
			units[i] = uint16(body[2*i])<<8 | uint16(body[2*i+1])
		} else {
			units[i] = uint16(body[2*i+1])<<8 | uint16(body[2*i])
		}
	}
	// An unpaired surrogate would come back as U+FFFD and break the
	// byte-for-byte round trip, so it is an error, not a guess.
	buf := make([]byte, 0, len(units)+len(units)/2)
	line, col := 1, 1
	for i := 0; i < len(units); i++ {
		u := units[i]
		r := rune(u)
		if utf16.IsSurrogate(r) {
			if u >= 0xDC00 || i+1 >= len(units) || units[i+1] < 0xDC00 || units[i+1] > 0xDFFF {
				return "", enc, &formats.ParseError{Line: line, Column: col, Err: errors.New("apple: unpaired UTF-16 surrogate")}
			}
			r = utf16.DecodeRune(r, rune(units[i+1]))
			i++
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		buf = utf8.AppendRune(buf, r)
	}
	if odd {
		return "", enc, &formats.ParseError{Line: line, Column: col, Err: errors.New("apple: UTF-16 file has an odd number of bytes")}
	}
	return string(buf), enc, nil
}

// encodeText returns text in the encoding enc, byte order mark included.
func encodeText(text string, enc encoding) []byte {
	if !enc.utf16() {
		return append([]byte(enc.bom()), text...)
	}
	out := make([]byte, 0, len(enc.bom())+2*len(text))
	out = append(out, enc.bom()...)
	be := enc == encUTF16BE || enc == encUTF16BENo
	put := func(u uint16) {
		if be {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	for _, r := range text {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			put(uint16(r1))
			put(uint16(r2))
			continue
		}
		put(uint16(r))
	}
	return out
}

// invalidUTF8 reports where the first invalid UTF-8 sequence is.
func invalidUTF8(b []byte) error {
	line, col := 1, 1
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		b = b[n:]
	}
	return &formats.ParseError{Line: line, Column: col, Err: errors.New("apple: invalid UTF-8")}
}
