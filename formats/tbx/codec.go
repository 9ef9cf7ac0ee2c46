package tbx

import (
	"bytes"

	"github.com/tolk-project/tolk/formats"
)

// Codec is the formats.Codec of file_format "tbx". A glossary is
// bilingual: a unit is keyed by its source term and its termEntry id
// (formats.Key's Source and Context), and every call names the langSets
// it reads and writes by f.Source.Code and f.Target.Code. Its methods
// decode afresh on every call, so a Codec is safe for concurrent use.
type Codec struct{}

var _ formats.Codec = Codec{}

// Decode returns one unit per termEntry, in document order (File.Units).
func (Codec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	file, err := Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return file.Units(f.Source.Code, f.Target.Code), nil
}

// Apply writes each edit into every termEntry whose source term and id
// are the edit's first source form and Context (File.EncodeTerms). A
// term the file lacks gets a termEntry of its own, an untranslated one
// too: a glossary's source strings live only in its files. Nil data
// starts from New. Fuzzy and Approved are ignored: Tolk reads no state
// from TBX but read-only and forbidden, which are flags.
func (Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	src, tgt := f.Source.Code, f.Target.Code
	file := New(src, tgt)
	if data != nil {
		var err error
		if file, err = Decode(bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	present := map[Term]bool{}
	for _, u := range file.Units(src, tgt) {
		present[Term{first(u.Source), u.Context}] = true
	}
	terms := make([]Edit, 0, len(edits))
	for _, e := range edits {
		k := Term{first(e.Source), e.Context}
		terms = append(terms, Edit{Source: k.Source, Context: k.Context, Target: e.Target, Add: !present[k]})
	}
	var buf bytes.Buffer
	err := file.EncodeTerms(&buf, src, tgt, terms)
	return buf.Bytes(), err
}

// Remove takes out every termEntry whose source term and id are a key's
// Source and Context (File.EncodeWithout). Nil data stays nil.
func (Codec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	if data == nil {
		return nil, nil
	}
	file, err := Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	terms := make([]Term, len(keys))
	for i, k := range keys {
		terms[i] = Term{Source: k.Source, Context: k.Context}
	}
	var buf bytes.Buffer
	if _, err := file.EncodeWithout(&buf, f.Source.Code, f.Target.Code, terms); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func first(forms []string) string {
	if len(forms) == 0 {
		return ""
	}
	return forms[0]
}
