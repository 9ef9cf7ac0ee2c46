package po

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

var errNoSource = errors.New("po: an edit of an entry the file lacks needs a msgid")

// patch replaces src[start:end] with text.
type patch struct {
	start, end int
	text       string
}

// Apply writes edits into data. An edit's unit is found by msgctxt and
// msgid (bilingual: Edit.Context and Edit.Source[0]; monolingual: the key
// in Edit.Context). For an entry the file has, only its msgstr lines
// change, and only when the value does: they are rewritten in the file's
// style (see quoteLines; wrapped at 79 columns unless the file has a
// msgid or msgstr line longer than that), a plural entry with as many
// msgstr[N] as the header's nplurals. Edit.Fuzzy adds or removes the
// "fuzzy" flag alone; an entry that stops being fuzzy loses its "#|"
// previous-msgid lines, as gettext's tools drop them. An entry the file
// lacks is added after the last live entry, before the obsolete ones.
//
// When anything changed, the header gets PO-Revision-Date (f.Revised),
// Last-Translator (f.Translator), Language (f.Target.Code), Plural-Forms
// when it has none it can use, and X-Generator "Tolk", each only when f
// gives it. With no change, the result is data itself, byte for byte.
// Nil (or empty) data is a new file: a header for f.Target, then the
// edits as new entries.
func (c Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	fresh := len(data) == 0
	src := string(data)
	if fresh {
		src = newFile(f)
	}
	d, err := parse(src)
	if err != nil {
		return nil, err
	}
	n := d.nplurals()
	if n == 0 {
		n = min(f.Target.PluralCount, maxPlurals)
	}
	wrap := wraps(src)
	index := c.index(d)
	// The last edit of a key wins.
	last := make(map[key]int, len(edits))
	keys := make([]key, len(edits))
	for i, e := range edits {
		keys[i] = c.editKey(e)
		last[keys[i]] = i
	}
	var ps []patch
	var added strings.Builder
	for i, e := range edits {
		if last[keys[i]] != i {
			continue
		}
		if bi, ok := index[keys[i]]; ok {
			ps = append(ps, d.entryPatches(&d.blocks[bi], e, n, wrap)...)
			continue
		}
		entry, err := c.newEntry(e, n, wrap, d.eol)
		if err != nil {
			return nil, err
		}
		added.WriteString(d.eol + entry)
	}
	if added.Len() > 0 {
		at := d.appendAt()
		text := added.String()
		if at == len(src) && at > 0 && !d.finalNL {
			text = d.eol + text
		}
		ps = append(ps, patch{at, at, text})
	}
	if len(ps) == 0 && !fresh {
		return bytes.Clone(data), nil
	}
	// The header goes first: a header Apply adds to a file without one
	// precedes an insertion at the file's start.
	ps = append(d.headerPatches(updates(f)), ps...)
	return d.patched(ps), nil
}

// index maps each live entry's key to its block.
func (c Codec) index(d *doc) map[key]int {
	m := make(map[key]int, len(d.blocks))
	for i := range d.blocks {
		b := &d.blocks[i]
		if k := c.blockKey(b); b.kind == kindEntry {
			if _, dup := m[k]; !dup {
				m[k] = i
			}
		}
	}
	return m
}

// blockKey is the key edits and removals find an entry by. Bilingual
// edits cannot tell msgctxt "" from none: both are Context "".
func (c Codec) blockKey(b *block) key {
	return key{b.ctx, b.id, b.hasCtx && (c.Monolingual || b.ctx != "")}
}

// editKey is the key of the entry an edit is for.
func (c Codec) editKey(e formats.Edit) key {
	if c.Monolingual {
		return monoEntryKey(e.Context)
	}
	id := ""
	if len(e.Source) > 0 {
		id = e.Source[0]
	}
	return key{e.Context, id, e.Context != ""}
}

// monoEntryKey splits a monolingual key into msgctxt and msgid.
func monoEntryKey(k string) key {
	if ctx, id, ok := strings.Cut(k, "\x04"); ok {
		return key{ctx, id, true}
	}
	return key{"", k, false}
}

// wraps reports whether the file's strings are wrapped as gettext wraps
// them: no msgctxt, msgid or msgstr line is longer than wrapWidth.
func wraps(src string) bool {
	for len(src) > 0 {
		line := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = ""
		}
		if strings.HasPrefix(line, "msg") && len(line) > wrapWidth &&
			width(strings.TrimSuffix(line, "\r")) > wrapWidth {
			return false
		}
	}
	return true
}

// forms fits targets to a plural entry's n forms (all of them when n is
// unknown), an untranslated one being a single "".
func forms(target []string, n int) []string {
	if n == 0 {
		n = max(len(target), 1)
	}
	out := make([]string, n)
	copy(out, target)
	return out
}

// msgstrLines renders an entry's msgstr part.
func msgstrLines(plural bool, target []string, n int, wrap bool) []string {
	if !plural {
		t := ""
		if len(target) > 0 {
			t = target[0]
		}
		return quoteLines("msgstr", t, wrap)
	}
	var lines []string
	for i, t := range forms(target, n) {
		lines = append(lines, quoteLines("msgstr["+strconv.Itoa(i)+"]", t, wrap)...)
	}
	return lines
}

// entryPatches returns the patches that give the entry b e's target and
// fuzzy state; none when it has them already.
func (d *doc) entryPatches(b *block, e formats.Edit, n int, wrap bool) []patch {
	var ps []patch
	fuzzy := d.isFuzzy(b)
	if e.Fuzzy && !fuzzy {
		ps = append(ps, d.addFuzzy(b))
	}
	if !e.Fuzzy && fuzzy {
		ps = append(ps, d.dropFuzzy(b, true)...)
	}
	if !sameTarget(b, e.Target, n) {
		lines := msgstrLines(b.hasPlural, e.Target, nForms(b, n), wrap)
		ps = append(ps, patch{b.strStart, b.strEnd, strings.Join(lines, d.eol)})
	}
	return ps
}

// nForms is how many msgstr[N] a plural entry is written with.
func nForms(b *block, n int) int {
	if n == 0 {
		return len(b.strs)
	}
	return n
}

func sameTarget(b *block, target []string, n int) bool {
	if !b.hasPlural {
		t := ""
		if len(target) > 0 {
			t = target[0]
		}
		return b.strs[0] == t
	}
	n = nForms(b, n)
	return len(b.strs) == n && slices.Equal(forms(target, n), b.strs)
}

// addFuzzy puts "fuzzy" first in the entry's first flags line, or adds
// a "#, fuzzy" line where gettext has it: after the other comments,
// before any "#|" line and the msgctxt or msgid.
func (d *doc) addFuzzy(b *block) patch {
	at := b.keyStart
	for _, c := range d.commentsOf(b) {
		if c.kind == ',' {
			line := d.src[c.start:c.end]
			i := strings.Index(line, "#,") + 2
			rest := strings.TrimSpace(line[i:])
			if rest == "" {
				return patch{c.start, c.end, "#, fuzzy"}
			}
			return patch{c.start, c.end, line[:i] + " fuzzy, " + rest}
		}
		if c.kind == '|' && c.start < at {
			at = c.start
		}
	}
	return patch{at, at, "#, fuzzy" + d.eol}
}

// dropFuzzy removes the fuzzy flag (the whole line when it was the only
// flag) and, with previous, the "#|" lines.
func (d *doc) dropFuzzy(b *block, previous bool) []patch {
	var ps []patch
	for _, c := range d.commentsOf(b) {
		switch {
		case c.kind == ',' && hasFlag(d.commentText(c), "fuzzy"):
			var keep []string
			for f := range strings.SplitSeq(d.commentText(c), ",") {
				if f = strings.TrimSpace(f); f != "" && f != "fuzzy" {
					keep = append(keep, f)
				}
			}
			if len(keep) == 0 {
				ps = append(ps, patch{c.start, c.next, ""})
			} else {
				ps = append(ps, patch{c.start, c.end, "#, " + strings.Join(keep, ", ")})
			}
		case c.kind == '|' && previous:
			ps = append(ps, patch{c.start, c.next, ""})
		}
	}
	return ps
}

// newEntry renders the entry for an edit the file lacks, each line
// followed by eol.
func (c Codec) newEntry(e formats.Edit, n int, wrap bool, eol string) (string, error) {
	ctx, id, hasCtx := e.Context, "", e.Context != ""
	plural, hasPlural := "", e.Plural || len(e.Source) > 1
	if c.Monolingual {
		ctx, id, hasCtx = strings.Cut(e.Context, "\x04")
		if !hasCtx {
			ctx, id = "", e.Context
		}
		hasPlural = e.Plural || len(e.Target) > 1
		plural = id
	} else if len(e.Source) > 0 {
		id, plural = e.Source[0], e.Source[0]
		if len(e.Source) > 1 {
			plural = e.Source[1]
		}
	}
	if id == "" {
		return "", errNoSource
	}
	var lines []string
	if e.Fuzzy {
		lines = append(lines, "#, fuzzy")
	}
	if hasCtx {
		lines = append(lines, quoteLines("msgctxt", ctx, wrap)...)
	}
	lines = append(lines, quoteLines("msgid", id, wrap)...)
	if hasPlural {
		lines = append(lines, quoteLines("msgid_plural", plural, wrap)...)
		if n == 0 {
			n = max(len(e.Target), 2)
		}
	}
	lines = append(lines, msgstrLines(hasPlural, e.Target, n, wrap)...)
	return strings.Join(lines, eol) + eol, nil
}

// appendAt is where new entries go: after the last live entry (or the
// header), before obsolete entries and trailing comments.
func (d *doc) appendAt() int {
	at := 0
	if d.bom {
		at = len(bom)
	}
	for i := range d.blocks {
		if k := d.blocks[i].kind; k == kindEntry || k == kindHeader || k == kindDup {
			at = d.blocks[i].end
		}
	}
	return at
}

// patched returns src with the patches applied; they must not overlap.
func (d *doc) patched(ps []patch) []byte {
	// An insertion at the start of a replaced span goes before it.
	slices.SortStableFunc(ps, func(a, b patch) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
	size := len(d.src)
	for _, p := range ps {
		size += len(p.text) - (p.end - p.start)
	}
	out := make([]byte, 0, size)
	pos := 0
	for _, p := range ps {
		out = append(out, d.src[pos:p.start]...)
		out = append(out, p.text...)
		pos = p.end
	}
	return append(out, d.src[pos:]...)
}

// Remove deletes the entries with the given keys (bilingual: msgctxt as
// Context and msgid as Source; monolingual: the key as Context), each
// with its comments and the blank line that separated it from the next
// entry, repeated copies of it included. Obsolete entries, the header
// and the other entries keep their bytes; the header is not updated.
func (c Codec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	d, err := parse(string(data))
	if err != nil {
		return nil, err
	}
	drop := make(map[key]bool, len(keys))
	for _, k := range keys {
		if c.Monolingual {
			drop[monoEntryKey(k.Context)] = true
		} else {
			drop[key{k.Context, k.Source, k.Context != ""}] = true
		}
	}
	var ps []patch
	for i := range d.blocks {
		b := &d.blocks[i]
		if (b.kind != kindEntry && b.kind != kindDup) || !drop[c.blockKey(b)] {
			continue
		}
		start, end := b.start, b.end
		if i+1 < len(d.blocks) {
			end = d.blocks[i+1].start
		} else {
			end = len(d.src)
			if i > 0 {
				start = d.blocks[i-1].end
			}
		}
		if n := len(ps); n > 0 && ps[n-1].end >= start {
			ps[n-1].end = max(ps[n-1].end, end)
			continue
		}
		ps = append(ps, patch{start, end, ""})
	}
	if len(ps) == 0 {
		return bytes.Clone(data), nil
	}
	return d.patched(ps), nil
}

// Emptied turns a template (a .pot, or a monolingual template in the
// source language) into the file of a new translation into f.Target,
// as msginit does and as the reference does with a POT as new base:
// every msgstr emptied (a plural entry gets f.Target's number of
// forms), fuzzy flags and "#|" lines dropped, and the header made the
// translation's: the header's own fuzzy flag dropped, Language,
// Plural-Forms, Last-Translator (f.Translator, else "Automatically
// generated" as the reference writes), PO-Revision-Date, X-Generator,
// and a UTF-8 charset where the template says "CHARSET". Comments,
// references, obsolete entries and layout are kept.
func (c Codec) Emptied(template []byte, f formats.File) ([]byte, error) {
	d, err := parse(string(template))
	if err != nil {
		return nil, err
	}
	n := min(f.Target.PluralCount, maxPlurals)
	if n == 0 {
		n = d.nplurals()
	}
	wrap := wraps(d.src)
	var ps []patch
	for i := range d.blocks {
		b := &d.blocks[i]
		switch b.kind {
		case kindHeader:
			ps = append(ps, d.dropFuzzy(b, false)...)
		case kindEntry, kindDup:
			ps = append(ps, d.dropFuzzy(b, true)...)
			if !sameTarget(b, nil, n) {
				lines := msgstrLines(b.hasPlural, nil, nForms(b, n), wrap)
				ps = append(ps, patch{b.strStart, b.strEnd, strings.Join(lines, d.eol)})
			}
		}
	}
	translator := f.Translator
	if translator == "" {
		translator = "Automatically generated"
	}
	ups := []field{{key: "Last-Translator", value: translator}}
	if !f.Revised.IsZero() {
		ups = append(ups, field{key: "PO-Revision-Date", value: f.Revised.Format(revisionLayout)})
	}
	if f.Target.Code != "" {
		ups = append(ups, field{key: "Language", value: f.Target.Code})
	}
	if pf := pluralForms(f.Target); pf != "" {
		ups = append(ups, field{key: "Plural-Forms", value: pf})
	}
	if ct, ok := d.headerValue("Content-Type"); ok && strings.Contains(ct, "CHARSET") {
		ups = append(ups, field{key: "Content-Type", value: strings.Replace(ct, "CHARSET", "UTF-8", 1)})
	}
	ups = append(ups, field{key: "X-Generator", value: Generator})
	ps = append(ps, d.headerPatches(ups)...)
	return d.patched(ps), nil
}
