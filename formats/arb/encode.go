package arb

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Apply writes edits into data through formats/json's span writer: an
// edited message's value is the only thing that changes, and a message
// the file lacks is added after the last top-level member in the file's
// indentation (without an "@key" metadata object: the codec does not see
// the template's). An edit with an empty target for a message the file
// lacks is skipped, an edit of a global or metadata key ("@…") is
// refused, and when edits repeat a key the last wins. Nil data is the
// reference's new file, "{}\n", before the edits.
func (Codec) Apply(data []byte, _ formats.File, edits []formats.Edit) ([]byte, error) {
	if len(edits) == 0 && data != nil {
		if _, err := parse(data); err != nil {
			return nil, err
		}
		return data, nil
	}
	f, err := parse(data)
	if err != nil {
		return nil, err
	}
	keep := make([]formats.Edit, 0, len(edits))
	for _, e := range edits {
		if len(e.Context) > 0 && e.Context[0] == '@' {
			return nil, fmt.Errorf("%w: %q", ErrMetadata, e.Context)
		}
		value := ""
		if len(e.Target) > 0 {
			value = e.Target[0]
		}
		if _, ok := f.index[e.Context]; !ok && (value == "" || !f.json.Editable(e.Context)) {
			continue
		}
		keep = append(keep, formats.Edit{Context: e.Context, Target: []string{value}})
	}
	var buf bytes.Buffer
	buf.Grow(len(data) + 64)
	if err := f.json.Encode(&buf, keep); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Remove deletes each key's message and its "@key" metadata object (every
// occurrence of a repeated one), with the comma and whitespace that
// separated each from its neighbour.
func (Codec) Remove(data []byte, _ formats.File, keys []formats.Key) ([]byte, error) {
	f, err := parse(data)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if _, ok := f.index[k.Context]; !ok || strings.HasPrefix(k.Context, "@") {
			continue
		}
		for _, ctx := range []string{k.Context, "@" + k.Context} {
			// EncodeWithout takes the live member; a repeated key's
			// earlier ones come to life one after another.
			for {
				var buf bytes.Buffer
				removed, err := f.json.EncodeWithout(&buf, ctx)
				if err != nil {
					return nil, err
				}
				if !removed {
					break
				}
				data = buf.Bytes()
				if f, err = parse(data); err != nil {
					return nil, err
				}
			}
		}
	}
	return data, nil
}

// Emptied returns the template with every message's value emptied and
// "@@locale" set to f.Target.Code (added after the last member when the
// template has none; left alone when the code is "" or the template
// holds something other than a string there); metadata objects and the other
// globals stay, as the reference's untranslate_store keeps them.
func (Codec) Emptied(template []byte, f formats.File) ([]byte, error) {
	p, err := parse(template)
	if err != nil {
		return nil, err
	}
	edits := make([]formats.Edit, 0, len(p.messages)+1)
	for _, m := range p.messages {
		edits = append(edits, formats.Edit{Context: m.key, Target: []string{""}})
	}
	if code := f.Target.Code; code != "" && p.json.Editable(localeKey) {
		edits = append(edits, formats.Edit{Context: localeKey, Target: []string{code}})
	}
	var buf bytes.Buffer
	buf.Grow(len(template))
	if err := p.json.Encode(&buf, edits); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
