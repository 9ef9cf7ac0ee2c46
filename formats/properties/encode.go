package properties

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/tolk-project/tolk/formats"
)

// newFile is what the reference writes for a new translation without a
// template for new translations (PropertiesFormat.new_translation).
const newFile = "\n"

// patch replaces src[start:end] with text.
type patch struct {
	start, end int
	text       string
}

// Apply writes edits into data. An edit of a key the file holds replaces
// the bytes of its value (of its last occurrence, the one Java reads),
// unless the value is unchanged, in which case nothing moves, so the
// continuation lines and escapes of untouched values stay as they are. A
// changed value is written on one line. A key the file lacks is appended
// after the last line as key, the separator of the file's last entry
// ("=" when it has none) and value, after a blank line when the file
// separates its entries with blank lines; an edit with an empty target
// for such a key is skipped (absence already says untranslated). When
// edits repeat a key, the last wins. Nil data is a new file: "\n" with no
// edits, the reference's new file, else only the added entries.
//
// Values are escaped as Java's Properties.store does (\\, \t, \n, \r, \f,
// a leading space as "\ ", other control characters as \uXXXX). The UTF-8
// variant writes every other character raw. The ISO-8859-1 variant writes
// characters beyond U+00FF as \uXXXX (surrogate pairs beyond U+FFFF), and
// U+0080–U+00FF raw only when the file already holds raw Latin-1 bytes,
// else as escapes too; the hex digits take the case of the file's first
// escape (upper case when it has none, as Java writes).
func (c Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	if data == nil && len(edits) == 0 {
		return []byte(newFile), nil
	}
	p, err := c.parse(data)
	if err != nil {
		return nil, err
	}
	last := make(map[string]int, len(edits))
	for i, e := range edits {
		last[e.Context] = i
	}
	var patches []patch
	var added []string
	for i, e := range edits {
		if last[e.Context] != i {
			continue
		}
		value := ""
		if len(e.Target) > 0 {
			value = e.Target[0]
		}
		if j, ok := p.index[e.Context]; ok {
			en := &p.entries[j]
			if en.value == value {
				continue
			}
			text := c.escape(p, value, false)
			if en.valStart == en.sepStart && text != "" {
				text = "=" + text // a bare key has no separator yet
			}
			patches = append(patches, patch{en.valStart, en.valEnd, text})
			continue
		}
		if value == "" {
			continue
		}
		added = append(added, c.escape(p, e.Context, true)+p.separator()+c.escape(p, value, false))
	}
	if len(patches) == 0 && len(added) == 0 {
		return data, nil
	}
	slices.SortFunc(patches, func(a, b patch) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	b.Grow(len(p.src) + 64*len(added))
	pos := 0
	for _, pt := range patches {
		b.WriteString(p.src[pos:pt.start])
		b.WriteString(pt.text)
		pos = pt.end
	}
	b.WriteString(p.src[pos:])
	if len(added) > 0 {
		p.appendEntries(&b, added)
	}
	return []byte(b.String()), nil
}

// appendEntries writes new entry lines at the end of b, which holds the
// file so far.
func (p *file) appendEntries(b *strings.Builder, lines []string) {
	out := b.String()
	if out != "" && !strings.HasSuffix(out, "\n") && !strings.HasSuffix(out, "\r") {
		b.WriteString(p.eol)
	}
	if p.pending {
		// The last line ends in a continuation backslash: a blank line
		// ends that entry before a new one starts. After a lone "\r" a
		// "\n" would only complete its line ending.
		if strings.HasSuffix(out, "\r") {
			b.WriteString("\r")
		} else {
			b.WriteString(p.eol)
		}
	}
	blank := p.blankSeparated()
	for i, l := range lines {
		if blank && (i > 0 || len(p.entries) > 0) {
			b.WriteString(p.eol)
		}
		b.WriteString(l)
		b.WriteString(p.eol)
	}
}

// blankSeparated says the file puts a blank line between entries: the
// gap between its last two entries holds nothing but blank lines.
func (p *file) blankSeparated() bool {
	n := len(p.entries)
	if n < 2 {
		return false
	}
	gap := p.src[p.entries[n-2].end:p.entries[n-1].noteStart]
	return gap != "" && strings.Trim(gap, " \t\f\r\n") == ""
}

// separator returns what the file writes between key and value: that of
// the last one-line entry with a value, "=" when there is none.
func (p *file) separator() string {
	for i := len(p.entries) - 1; i >= 0 && i >= len(p.entries)-20; i-- {
		e := &p.entries[i]
		sep := p.src[e.sepStart:e.valStart]
		if e.oneLine && e.value != "" && strings.Trim(sep, " \t\f") != "" {
			return sep
		}
	}
	return "="
}

// escape writes s as a value, or as a key when key is set (which also
// escapes '=', ':', '#', '!' and every space).
func (c Codec) escape(p *file, s string, key bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	hex := "0123456789ABCDEF"
	if p.lower {
		hex = "0123456789abcdef"
	}
	u := func(r rune) {
		b.WriteString(`\u`)
		for sh := 12; sh >= 0; sh -= 4 {
			b.WriteByte(hex[r>>sh&0xF])
		}
	}
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == ' ' && (i == 0 || key):
			b.WriteString(`\ `)
		case key && (r == '=' || r == ':' || r == '#' || r == '!'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7F:
			u(r)
		case r < 0x80 || c.UTF8:
			b.WriteRune(r)
		case r <= 0xFF && p.raw8:
			b.WriteByte(byte(r)) // one ISO-8859-1 byte
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			u(hi)
			u(lo)
		default:
			u(r)
		}
	}
	return b.String()
}

// Remove deletes the entries with the given keys, every occurrence of a
// repeated key, each with its lines and the comment block directly above
// it.
func (c Codec) Remove(data []byte, _ formats.File, keys []formats.Key) ([]byte, error) {
	p, err := c.parse(data)
	if err != nil {
		return nil, err
	}
	drop := make(map[string]bool, len(keys))
	for _, k := range keys {
		drop[k.Context] = true
	}
	var b strings.Builder
	pos, removed := 0, false
	for i := range p.entries {
		e := &p.entries[i]
		if !drop[e.key] {
			continue
		}
		b.WriteString(p.src[pos:e.noteStart])
		pos, removed = e.end, true
	}
	if !removed {
		return data, nil
	}
	b.WriteString(p.src[pos:])
	return []byte(b.String()), nil
}

// Emptied returns the template with every value emptied ("key=" keeps its
// key, separator and comments; continuation lines go), what the reference
// writes for a new translation when the template is the base for new
// translations (TTKitFormat.untranslate_store). Without one the reference
// writes "\n", which Apply(nil, f, nil) returns.
func (c Codec) Emptied(template []byte, _ formats.File) ([]byte, error) {
	p, err := c.parse(template)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(len(p.src))
	pos := 0
	for i := range p.entries {
		e := &p.entries[i]
		if e.value == "" {
			continue // already empty; its bytes may be all the entry has
		}
		b.WriteString(p.src[pos:e.valStart])
		pos = e.valEnd
	}
	b.WriteString(p.src[pos:])
	return []byte(b.String()), nil
}
