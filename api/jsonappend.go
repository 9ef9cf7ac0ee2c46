package api

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tolk-project/tolk/edge"
)

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way encoding/json does
// with HTML escaping off: quotes, backslashes and control characters
// escaped, invalid UTF-8 replaced by U+FFFD, and U+2028 and U+2029
// escaped for JavaScript's sake.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONStrings appends a string array; nil is null, as encoding/json
// writes it.
func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// byIDJSON writes the quoted URLs of one collection's objects by id, as
// urls.byID builds them, from a prefix escaped once: what is appended per
// object (digits, a slash, format=api) never needs escaping.
type byIDJSON struct {
	open []byte // an opening quote and the escaped collection URL
	tail string // what follows the id, closing quote included
}

func newByIDJSON(u edge.URLs, collection string) byIDJSON {
	tail := `/"`
	if u.FormatAPI {
		tail = `/?format=api"`
	}
	return byIDJSON{open: openJSONString(u.Base() + collection), tail: tail}
}

// openJSONString is s as a JSON string without its closing quote, for
// what is appended after it.
func openJSONString(s string) []byte {
	b := appendJSONString(nil, s)
	return b[:len(b)-1]
}

func (c byIDJSON) appendURL(b []byte, id int64) []byte {
	b = append(b, c.open...)
	b = appendJSONInt(b, id)
	return append(b, c.tail...)
}

// appendJSONStringOrNull appends *s, or null.
func appendJSONStringOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func appendJSONBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

func appendJSONInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// appendJSON writes the envelope itself and, when T writes its own JSON,
// the results too; otherwise it returns nil and writeJSON encodes the
// whole list by reflection.
func (l list[T]) AppendJSON(b []byte) []byte {
	if _, ok := any((*T)(nil)).(edge.JSONAppender); !ok {
		return nil
	}
	b = append(b, `{"count":`...)
	b = appendJSONInt(b, int64(l.Count))
	b = append(b, `,"next":`...)
	b = appendJSONStringOrNull(b, l.Next)
	b = append(b, `,"previous":`...)
	b = appendJSONStringOrNull(b, l.Previous)
	b = append(b, `,"results":`...)
	if l.Results == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i := range l.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = any(&l.Results[i]).(edge.JSONAppender).AppendJSON(b)
	}
	return append(b, "]}"...)
}

// appendTimestamp appends t in timestampLayout, as t.UTC().Format would,
// without the layout interpretation that made formatting a tenth of
// writing a change list.
func appendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timestampLayout)
	}
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/1000, 6)
	return append(b, 'Z')
}

// appendDigits appends the n lowest decimal digits of v >= 0, zero-padded.
func appendDigits(b []byte, v, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, 0)
	}
	for i := len(b) - 1; i >= len(b)-n; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}
