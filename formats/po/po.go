package po

import (
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Codec reads and writes gettext PO files. The zero value is the
// reference's bilingual "po" format, whose msgid is the source string;
// with Monolingual set it is "po-mono", whose msgid is a key and whose
// source comes from the template. A Codec keeps no state: it is safe
// for concurrent use.
type Codec struct {
	Monolingual bool
}

var (
	_ formats.Codec     = Codec{}
	_ formats.Templater = Codec{}
)

// Decode returns the file's live entries in file order, one unit each.
// The header entry (msgid "" without msgctxt), obsolete "#~" entries and
// repeated entries (the same msgctxt and msgid as an earlier one, which
// msgfmt rejects: the first wins) are not units.
//
// Bilingual: Context is the msgctxt ("" without one) and Source the
// msgid, or [msgid, msgid_plural] for a plural entry. Monolingual:
// Context is the key, the msgid, prefixed with the msgctxt and "\x04"
// when there is one (Translate Toolkit's getid), and Source is nil.
//
// Target is [msgstr], or for a plural entry msgstr[0…n-1] with n from
// the header's Plural-Forms (f.Target.PluralCount when the header gives
// none; the forms the entry has when neither does), forms the entry
// lacks being "". The forms stay in the file's own order: the reference
// takes a PO file's plural rule from its header, whatever its order.
//
// Fuzzy is the "fuzzy" flag; the other "#," flags are Flags. Note is the
// translator comments ("# ") followed by the extracted comments ("#."),
// one per line, as Translate Toolkit's getnotes gives them to the
// reference. Location is the "#:" references joined with ", ". Line is
// the entry's first line, its comments included.
func (c Codec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	d, err := parse(string(data))
	if err != nil {
		return nil, err
	}
	n := d.nplurals()
	if n == 0 {
		n = min(f.Target.PluralCount, maxPlurals)
	}
	units := make([]formats.Unit, 0, len(d.blocks))
	for i := range d.blocks {
		b := &d.blocks[i]
		if b.kind != kindEntry {
			continue
		}
		u := formats.Unit{Line: b.line, Target: targets(b, n)}
		if c.Monolingual {
			u.Context = monoKey(b)
		} else {
			u.Context = b.ctx
			u.Source = []string{b.id}
			if b.hasPlural {
				u.Source = append(u.Source, b.plural)
			}
		}
		d.fill(b, &u)
		units = append(units, u)
	}
	return units, nil
}

// monoKey is a monolingual entry's key.
func monoKey(b *block) string {
	if b.hasCtx {
		return b.ctx + "\x04" + b.id
	}
	return b.id
}

// targets returns an entry's msgstr forms: n of them for a plural entry
// when n is known.
func targets(b *block, n int) []string {
	if !b.hasPlural {
		return []string{b.strs[0]}
	}
	if n == 0 {
		n = len(b.strs)
	}
	t := make([]string, n)
	copy(t, b.strs)
	return t
}

// commentText returns a comment line without its two-character marker
// and the one space after it ("#. text" → "text"); a translator
// comment loses "#" and one space.
func (d *doc) commentText(c comment) string {
	s := strings.TrimLeft(d.src[c.start:c.end], " \t")
	if c.kind == ' ' {
		s = s[1:]
	} else {
		s = s[2:]
	}
	return strings.TrimPrefix(s, " ")
}

// fill sets the unit fields the entry's comments give.
func (d *doc) fill(b *block, u *formats.Unit) {
	var notes, extracted, locs []string
	for _, c := range d.commentsOf(b) {
		text := d.commentText(c)
		switch c.kind {
		case ' ':
			notes = append(notes, text)
		case '.':
			extracted = append(extracted, text)
		case ':':
			locs = append(locs, strings.Fields(text)...)
		case ',':
			for flag := range strings.SplitSeq(text, ",") {
				switch flag = strings.TrimSpace(flag); flag {
				case "":
				case "fuzzy":
					u.Fuzzy = true
				default:
					u.Flags = append(u.Flags, flag)
				}
			}
		}
	}
	u.Note = strings.Join(append(notes, extracted...), "\n")
	u.Location = strings.Join(locs, ", ")
}

// isFuzzy reports whether the entry has the fuzzy flag.
func (d *doc) isFuzzy(b *block) bool {
	for _, c := range d.commentsOf(b) {
		if c.kind == ',' && hasFlag(d.commentText(c), "fuzzy") {
			return true
		}
	}
	return false
}

func hasFlag(text, flag string) bool {
	for f := range strings.SplitSeq(text, ",") {
		if strings.TrimSpace(f) == flag {
			return true
		}
	}
	return false
}
