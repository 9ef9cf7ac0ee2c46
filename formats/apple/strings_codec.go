package apple

import (
	"github.com/tolk-project/tolk/formats"
)

// StringsCodec reads and writes Apple .strings files, monolingual (the
// key is the unit's Context, the template gives the source). It reads
// UTF-8 and UTF-16 files alike and writes each back in its own encoding;
// UTF16 only chooses the encoding of a new file. The zero value is the
// strings-utf8 codec. It is safe for concurrent use.
type StringsCodec struct {
	// UTF16 makes new files UTF-16 little-endian with a byte order mark,
	// as the reference's "strings" format writes them; otherwise new
	// files are UTF-8 without one ("strings-utf8").
	UTF16 bool
}

var (
	// Strings is the codec of the reference's "strings" format (iOS
	// strings, UTF-16).
	Strings = StringsCodec{UTF16: true}
	// StringsUTF8 is the codec of "strings-utf8" (iOS strings, UTF-8).
	StringsUTF8 = StringsCodec{}
)

var (
	_ formats.Codec         = StringsCodec{}
	_ formats.Templater     = StringsCodec{}
	_ formats.PathLanguages = StringsCodec{}
)

// Decode returns one unit per key, in file order: Context is the key,
// Target the value, Note the comments between the previous pair and this
// one (and a comment on the same line after its ';'), joined by "\n"
// without their markers; Xcode's "No comment provided by engineer." is
// not a note. When a key repeats, the last pair wins, as when Foundation
// loads the file, and the earlier ones are not units. Malformed input is
// a *formats.ParseError.
func (StringsCodec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	sf, err := parseStrings(data)
	if err != nil {
		return nil, err
	}
	return sf.units(), nil
}

// Apply writes edits into data. An edited value is replaced inside its
// quotes only (a value equal to the file's is left alone, keeping raw line
// breaks as they are); a key the file lacks is added after the last pair
// as "key" = "value"; with the file's spacing around '=' and between
// pairs, unless its target is empty. Nil data is a new file holding only
// the added pairs ("\n" when there are none, as the reference creates
// it), in UTF-16 or UTF-8 by c.UTF16.
func (c StringsCodec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	if data == nil {
		enc := encUTF8
		if c.UTF16 {
			enc = encUTF16LE
		}
		data = encodeText("\n", enc)
	}
	sf, err := parseStrings(data)
	if err != nil {
		return nil, err
	}
	var reps []rep
	var added []formats.Edit
	addedAt := map[string]int{}
	for _, e := range edits {
		target := firstForm(e.Target)
		i, ok := sf.index[e.Context]
		if !ok {
			if j, dup := addedAt[e.Context]; dup {
				added[j] = e
			} else if target != "" {
				addedAt[e.Context] = len(added)
				added = append(added, e)
			}
			continue
		}
		p := &sf.pairs[i]
		if p.value == target && p.valStart >= 0 {
			continue
		}
		if p.valStart < 0 { // "key"; gains its value
			reps = append(reps, rep{p.keyEnd, p.valEnd, " = " + escapeStrings(target)})
			continue
		}
		reps = append(reps, rep{p.valStart, p.valEnd, escapeStrings(target)})
	}
	if len(added) > 0 {
		reps = append(reps, sf.insertion(added))
	}
	if len(reps) == 0 {
		return data, nil
	}
	return encodeText(splice(sf.text, reps), sf.enc), nil
}

// firstForm returns a target's first form, "" for none.
func firstForm(target []string) string {
	if len(target) == 0 {
		return ""
	}
	return target[0]
}

// insertion returns the rep that adds new pairs after the last one.
func (sf *stringsFile) insertion(edits []formats.Edit) rep {
	sep, eq := "\n", " = "
	n := len(sf.pairs)
	if n >= 2 {
		if gap := sf.text[sf.pairs[n-2].end:sf.pairs[n-1].start]; isSpace(gap) && containsNewline(gap) {
			sep = gap
		}
	}
	if n >= 1 {
		if p := sf.pairs[n-1]; p.valStart >= 0 && isSpaceAround(sf.text[p.keyEnd:p.valStart], '=') {
			eq = sf.text[p.keyEnd:p.valStart]
		}
	}
	var b []byte
	for _, e := range edits {
		if n > 0 {
			b = append(b, sep...)
		}
		b = append(b, escapeStrings(e.Context)...)
		b = append(b, eq...)
		b = append(b, escapeStrings(firstForm(e.Target))...)
		b = append(b, ';')
		if n == 0 {
			b = append(b, '\n')
		}
	}
	if n > 0 {
		end := sf.pairs[n-1].end
		return rep{end, end, string(b)}
	}
	// No pairs yet: a blank file becomes the pairs; after comments they
	// follow on a line of their own.
	if isSpace(sf.text) {
		return rep{0, len(sf.text), string(b)}
	}
	if sf.text[len(sf.text)-1] != '\n' {
		b = append([]byte{'\n'}, b...)
	}
	return rep{len(sf.text), len(sf.text), string(b)}
}

// Remove deletes the pairs with the given keys (every occurrence of a
// repeated key) with their leading comments, as whole lines.
func (StringsCodec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	sf, err := parseStrings(data)
	if err != nil {
		return nil, err
	}
	gone := make(map[string]bool, len(keys))
	for _, k := range keys {
		gone[k.Context] = true
	}
	var reps []rep
	for _, p := range sf.pairs {
		if gone[p.key] {
			s, e := lineSpan(sf.text, p.start, p.end)
			reps = append(reps, rep{s, e, ""})
		}
	}
	if len(reps) == 0 {
		return data, nil
	}
	return encodeText(splice(sf.text, reps), sf.enc), nil
}

// Emptied returns the template with every value replaced by "", its keys,
// comments and layout kept: the file of a new translation, as the
// reference writes one from a template.
func (StringsCodec) Emptied(template []byte, f formats.File) ([]byte, error) {
	sf, err := parseStrings(template)
	if err != nil {
		return nil, err
	}
	var reps []rep
	for _, p := range sf.pairs {
		switch {
		case p.valStart < 0:
			reps = append(reps, rep{p.keyEnd, p.valEnd, ` = ""`})
		case p.valEnd-p.valStart != 2 || sf.text[p.valStart:p.valEnd] != `""`:
			reps = append(reps, rep{p.valStart, p.valEnd, `""`})
		}
	}
	return encodeText(splice(sf.text, reps), sf.enc), nil
}

func isSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

func containsNewline(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return true
		}
	}
	return false
}

// isSpaceAround reports whether s is blanks, one c, blanks.
func isSpaceAround(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return isSpace(s[:i]) && isSpace(s[i+1:]) && !containsNewline(s)
		}
	}
	return false
}
