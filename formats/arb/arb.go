package arb

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tolk-project/tolk/formats"
	tolkjson "github.com/tolk-project/tolk/formats/json"
)

// Codec reads and writes ARB files. It keeps no state and is safe for
// concurrent use.
type Codec struct{}

var (
	_ formats.Codec     = Codec{}
	_ formats.Templater = Codec{}
)

// ErrMessage is wrapped in the *formats.ParseError of a message (a key
// without "@") whose value is an object, an array, a boolean or null.
var ErrMessage = errors.New("arb: message is not a string")

// ErrMetadata is returned by Apply for an edit of a global or metadata
// key ("@@locale", "@key"), which are no units.
var ErrMetadata = errors.New("arb: key is metadata, not a message")

// newFile is what the reference writes for a new translation without a
// template for new translations (JSONFormat.new_translation).
const newFile = "{}\n"

// localeKey is the global that names the file's locale.
const localeKey = "@@locale"

// message is one top-level member that is a unit.
type message struct {
	key, value string
	line       int
}

// file is a decoded ARB file: the JSON File that writes it and its
// messages in file order.
type file struct {
	json     *tolkjson.File
	messages []message
	index    map[string]int // key → message
	notes    map[string]string
	locale   bool // the file has @@locale
}

// parse decodes data; nil data is the reference's new file.
func parse(data []byte) (*file, error) {
	if data == nil {
		data = []byte(newFile)
	}
	jf, err := tolkjson.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	jf.Layout = tolkjson.LayoutFlat
	f := &file{json: jf, index: map[string]int{}, notes: map[string]string{}}
	// formats/json validated the document and found every string leaf
	// with its line; the top level decides which are messages. Nested
	// leaves have dotted contexts, so a message is a leaf whose context is
	// a top-level key.
	lines := map[string]int{}
	for _, u := range jf.Units() {
		lines[u.Context] = u.Line
		if strings.HasPrefix(u.Context, "@") && strings.HasSuffix(u.Context, ".description") {
			f.notes[u.Context[1:len(u.Context)-len(".description")]] = u.Target[0]
		}
	}
	doc := data
	if bytes.HasPrefix(doc, []byte("\uFEFF")) {
		doc = doc[3:]
	}
	var perr error
	gjson.ParseBytes(doc).ForEach(func(key, value gjson.Result) bool {
		k := key.String()
		if strings.HasPrefix(k, "@") {
			if k == localeKey {
				f.locale = true
			}
			return true
		}
		switch value.Type {
		case gjson.String:
		case gjson.Number:
			return true // not text; translate-toolkit reads it as a string
		default:
			perr = parseError(data, len(data)-len(doc)+value.Index, fmt.Errorf("%w: %q", ErrMessage, k))
			return false
		}
		f.index[k] = len(f.messages)
		f.messages = append(f.messages, message{key: k, value: value.String(), line: lines[k]})
		return true
	})
	if perr != nil {
		return nil, perr
	}
	if len(f.index) < len(f.messages) {
		// A repeated key: the last wins, as in JSON.parse.
		kept := f.messages[:0]
		for i, m := range f.messages {
			if f.index[m.key] == i {
				f.index[m.key] = len(kept)
				kept = append(kept, m)
			}
		}
		f.messages = kept
	}
	return f, nil
}

// parseError locates offset off of data.
func parseError(data []byte, off int, err error) *formats.ParseError {
	return formats.ErrorAt(data, off, err)
}

// Decode returns the file's messages in file order: every top-level key
// without a leading "@", Context the key, Target its value (ICU plural
// and select syntax stays inside the one string), Note the
// "description" of its "@key" metadata object, Line the key's line.
// Globals ("@@locale", "@@last_modified") and metadata are not units; a
// message whose value is a number is skipped. A repeated key is one unit
// at its last occurrence. Malformed JSON, and a message holding an
// object, array, boolean or null, are a *formats.ParseError.
func (Codec) Decode(data []byte, _ formats.File) ([]formats.Unit, error) {
	f, err := parse(data)
	if err != nil {
		return nil, err
	}
	units := make([]formats.Unit, len(f.messages))
	targets := make([]string, len(f.messages))
	for i, m := range f.messages {
		targets[i] = m.value
		units[i] = formats.Unit{
			Context: m.key,
			Target:  targets[i : i+1 : i+1],
			Note:    f.notes[m.key],
			Line:    m.line,
		}
	}
	return units, nil
}
