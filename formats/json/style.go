package json

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Style is a layout Restyle gives a whole file: the reference's
// weblate.json.customize add-on (Python's json.dumps indent and
// sort_keys).
type Style struct {
	// Indent is one level of indentation: spaces or tabs, "" for none
	// (each member still on its own line, as json.dumps with indent=0).
	Indent string
	// SortKeys orders each object's members by key, in code point order.
	SortKeys bool
}

// ErrNotJSON is Restyle's answer to bytes that are not one JSON value.
var ErrNotJSON = errors.New("json: not a valid JSON document")

// Restyle lays data out in st: one member or element per line, indented
// by st.Indent per level, ", " never, ": " after keys, empty objects and
// arrays as {} and [], keys sorted if st.SortKeys. Only layout (and,
// with SortKeys, order) changes: every key and scalar keeps its own bytes
// (escapes, number spelling), and the final newline is kept or left out
// as data had it. Restyle of its own output is the identity, so a file
// already in st changes only where edits change it.
func Restyle(data []byte, st Style) ([]byte, error) {
	if !gjson.ValidBytes(data) {
		return nil, ErrNotJSON
	}
	root := gjson.ParseBytes(data)
	var b bytes.Buffer
	b.Grow(len(data) + len(data)/4)
	restyle(&b, root, st, 0)
	if bytes.HasSuffix(bytes.TrimRight(data, " \t\r"), []byte("\n")) {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// restyle writes one value at nesting depth.
func restyle(b *bytes.Buffer, v gjson.Result, st Style, depth int) {
	switch {
	case v.IsObject():
		type member struct{ key, value gjson.Result }
		var ms []member
		v.ForEach(func(k, val gjson.Result) bool {
			ms = append(ms, member{k, val})
			return true
		})
		if len(ms) == 0 {
			b.WriteString("{}")
			return
		}
		if st.SortKeys {
			slices.SortStableFunc(ms, func(x, y member) int { return strings.Compare(x.key.Str, y.key.Str) })
		}
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, st, depth+1)
			b.WriteString(m.key.Raw)
			b.WriteString(": ")
			restyle(b, m.value, st, depth+1)
		}
		newline(b, st, depth)
		b.WriteByte('}')
	case v.IsArray():
		var es []gjson.Result
		v.ForEach(func(_, val gjson.Result) bool {
			es = append(es, val)
			return true
		})
		if len(es) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range es {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, st, depth+1)
			restyle(b, e, st, depth+1)
		}
		newline(b, st, depth)
		b.WriteByte(']')
	default:
		b.WriteString(strings.TrimSpace(v.Raw))
	}
}

func newline(b *bytes.Buffer, st Style, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString(st.Indent)
	}
}
