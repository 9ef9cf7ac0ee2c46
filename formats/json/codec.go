package json

import (
	"bytes"
	"slices"

	"github.com/tolk-project/tolk/formats"
)

// Codec is the formats.Codec and formats.Templater of one JSON dialect:
// formats/codecs holds one per file_format ("go-i18n-json" and
// "go-i18n-json-v2" share GoI18n). Its methods decode the file afresh on
// every call and keep nothing, so a Codec is safe for concurrent use.
type Codec struct {
	Dialect Dialect
}

var (
	_ formats.Codec     = Codec{}
	_ formats.Templater = Codec{}
)

// decode decodes data (nil: a new, empty file) in the codec's dialect,
// with the plural categories of lang.
func (c Codec) decode(data []byte, lang formats.Language) (*File, error) {
	f := New()
	if data != nil {
		var err error
		if f, err = Decode(bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	f.Dialect = c.Dialect
	f.Plurals = lang.Plurals
	return f, nil
}

// Decode returns the units of data in file order (File.Units), plural
// forms in the order of f.Target.Plurals.
func (c Codec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	file, err := c.decode(data, f.Target)
	if err != nil {
		return nil, err
	}
	return file.Units(), nil
}

// Apply writes the edits' targets into data (File.Encode). Two kinds of
// edit are left out rather than failing the whole file: one whose key
// the file lacks and whose target is empty, which a missing key already
// says, and one whose key the file holds as an object or another
// non-string value (File.Editable), which the file does not treat as a
// string. Source, Fuzzy and Approved are ignored: JSON records neither a
// source nor a state.
func (c Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	file, err := c.decode(data, f.Target)
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	for _, u := range file.Units() {
		present[u.Context] = true
	}
	keep := make([]formats.Edit, 0, len(edits))
	for _, e := range edits {
		if (!present[e.Context] && blank(e.Target)) || !file.Editable(e.Context) {
			continue
		}
		keep = append(keep, e)
	}
	if c.Dialect == I18nextV3 {
		if file, err = c.dropStale(data, file, f.Target, keep); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	err = file.Encode(&buf, keep)
	return buf.Bytes(), err
}

// Remove takes out every member that holds each key's unit (File.Members:
// an i18next unit's plural keys, a go-i18n message object); Key.Source is
// ignored. Each removal shifts the bytes after it, so the file is decoded
// again before the next one. Nil data stays nil.
func (c Codec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	if data == nil {
		return nil, nil
	}
	for _, k := range keys {
		file, err := c.decode(data, f.Target)
		if err != nil {
			return nil, err
		}
		for _, ctx := range file.Members(k.Context) {
			if data, err = c.without(data, f.Target, ctx); err != nil {
				return nil, err
			}
		}
	}
	return data, nil
}

// without decodes data and writes it without the member at ctx.
func (c Codec) without(data []byte, lang formats.Language, ctx string) ([]byte, error) {
	file, err := c.decode(data, lang)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := file.EncodeWithout(&buf, ctx); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Emptied turns a template in f.Source's language into the file of a new
// translation in f.Target's: every string emptied, the template's shape
// kept. A plural unit keeps the template's plural keys, emptied, except
// those of categories f.Target does not use (Japanese has no "one"); the
// translation's other forms are added as they are translated.
func (c Codec) Emptied(template []byte, f formats.File) ([]byte, error) {
	file, err := c.decode(template, f.Source)
	if err != nil {
		return nil, err
	}
	var (
		edits []formats.Edit
		drop  []string
	)
	for _, u := range file.Units() {
		if file.Editable(u.Context) {
			edits = append(edits, formats.Edit{Context: u.Context, Target: make([]string, len(u.Target)), Plural: len(u.Target) > 1})
		}
		if c.Dialect == I18nextV3 && len(u.Target) > 1 {
			drop = append(drop, file.v3Stale(u.Context, len(f.Target.Plurals))...)
		}
		for cat, m := range file.FormMembers(u.Context) {
			if len(u.Target) > 1 && !slices.Contains(f.Target.Plurals, cat) {
				drop = append(drop, m)
			}
		}
	}
	var buf bytes.Buffer
	if err = file.Encode(&buf, edits); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	slices.Sort(drop)
	for _, m := range drop {
		if out, err = c.without(out, f.Target, m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// dropStale takes out of an i18next v3 file the members of each plural
// edit's unit that the language does not use (File.v3Stale), so that a
// Russian file's "key"/"key_plural" become "key_0"… as the reference
// writes them. The new keys go where Encode inserts new members, the end
// of the object: the reference rewrites the whole file, and keeping the
// old place would need a rename of keys the writer does not do. It
// returns file itself when nothing is stale.
func (c Codec) dropStale(data []byte, file *File, lang formats.Language, edits []formats.Edit) (*File, error) {
	var stale []string
	for _, e := range edits {
		if e.Plural || len(e.Target) > 1 {
			stale = append(stale, file.v3Stale(e.Context, len(file.plurals()))...)
		}
	}
	if len(stale) == 0 {
		return file, nil
	}
	var err error
	for _, m := range stale {
		// A key that repeats has earlier strings that the removal of
		// the last one brings back to life; they go too.
		for file.isString(m) {
			if data, err = c.without(data, lang, m); err != nil {
				return nil, err
			}
			if file, err = c.decode(data, lang); err != nil {
				return nil, err
			}
		}
	}
	return file, nil
}

// blank reports whether every form is empty.
func blank(forms []string) bool {
	for _, s := range forms {
		if s != "" {
			return false
		}
	}
	return true
}
