package xcstrings

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// indentStep is Xcode's indentation.
const indentStep = "  "

// patch replaces src[start:end] with text. Insertions at one offset are
// ordered by key, which keeps inserted members sorted as Xcode sorts them.
type patch struct {
	start, end int
	text       string
	key        string
}

// writer collects the patches of one Apply or Remove.
type writer struct {
	c       *catalog
	sep     string // between a key and its value: Xcode's " : "
	patches []patch
	// newKeys and newEntries are the entries Apply appends to "strings",
	// in edit order, written at once by appendEntries.
	newKeys    []string
	newEntries []render
}

// appendEntries writes the new entries after the last one of "strings".
func (w *writer) appendEntries() {
	if len(w.newKeys) == 0 {
		return
	}
	obj := w.c.strings
	if len(obj.members) == 0 {
		w.replace(obj.start, obj.end, w.object(w.newKeys, w.newEntries)(w.lineIndent(obj.start)), "")
		return
	}
	m := obj.members[len(obj.members)-1]
	ind := w.lineIndent(m.keyStart)
	var b strings.Builder
	for i, k := range w.newKeys {
		b.WriteString(",\n" + ind + quote(k) + w.sep + w.newEntries[i](ind))
	}
	w.replace(m.val.end, m.val.end, b.String(), "")
}

func newWriter(c *catalog) *writer {
	w := &writer{c: c, sep: " : "}
	if ms := c.root.members; len(ms) > 0 {
		// The file's own separator, from its first member.
		i := ms[0].val.start - 1
		for i > 0 && isSpace(c.src[i]) {
			i--
		}
		j := i - 1
		for j > 0 && isSpace(c.src[j]) {
			j--
		}
		if c.src[i] == ':' {
			w.sep = string(c.src[j+1 : ms[0].val.start])
		}
	}
	return w
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (w *writer) replace(start, end int, text, key string) {
	w.patches = append(w.patches, patch{start: start, end: end, text: text, key: key})
}

// bytes applies the patches to the source.
func (w *writer) bytes() ([]byte, error) {
	if len(w.patches) == 0 {
		return w.c.src, nil
	}
	sort.SliceStable(w.patches, func(i, j int) bool {
		a, b := w.patches[i], w.patches[j]
		if a.start != b.start {
			return a.start < b.start
		}
		return a.end == a.start && b.end == b.start && a.key < b.key
	})
	var out bytes.Buffer
	out.Grow(len(w.c.src) + 256)
	at := 0
	for _, p := range w.patches {
		if p.start < at {
			return nil, errorf("edits overlap at line %d; write one edit per string", newLines(w.c.src).at(p.start))
		}
		out.Write(w.c.src[at:p.start])
		out.WriteString(p.text)
		at = p.end
	}
	out.Write(w.c.src[at:])
	return out.Bytes(), nil
}

// lineIndent returns the blanks that start the line holding off.
func (w *writer) lineIndent(off int) string {
	start := bytes.LastIndexByte(w.c.src[:off], '\n') + 1
	end := start
	for end < len(w.c.src) && (w.c.src[end] == ' ' || w.c.src[end] == '\t') {
		end++
	}
	return string(w.c.src[start:end])
}

// render writes one member's value at the given indentation (that of
// the line its key is on).
type render func(indent string) string

// insert adds the member key to obj before the first member whose key
// sorts after it, as Xcode keeps every object but "strings" sorted; with
// last, after the last member.
func (w *writer) insert(obj *node, key string, val render, last bool) {
	ms := obj.members
	if len(ms) == 0 {
		ind := w.lineIndent(obj.start)
		in := ind + indentStep
		w.replace(obj.start, obj.end, "{\n"+in+quote(key)+w.sep+val(in)+"\n"+ind+"}", key)
		return
	}
	for _, m := range ms {
		if !last && m.key > key {
			ind := w.lineIndent(m.keyStart)
			w.replace(m.keyStart, m.keyStart, quote(key)+w.sep+val(ind)+",\n"+ind, key)
			return
		}
	}
	m := ms[len(ms)-1]
	ind := w.lineIndent(m.keyStart)
	w.replace(m.val.end, m.val.end, ",\n"+ind+quote(key)+w.sep+val(ind), key)
}

// remove deletes the members of obj whose keys are in keys, with the
// comma and line break that separate them from their neighbours.
func (w *writer) remove(obj *node, keys map[string]bool) {
	ms := obj.members
	kept := 0
	for _, m := range ms {
		if !keys[m.key] {
			kept++
		}
	}
	switch {
	case kept == len(ms):
		return
	case kept == 0:
		w.replace(obj.start, obj.end, "{}", "")
		return
	}
	lead := 0 // members before the first kept one
	for keys[ms[lead].key] {
		lead++
	}
	if lead > 0 {
		w.replace(ms[0].keyStart, ms[lead].keyStart, "", "")
	}
	for i := lead + 1; i < len(ms); i++ {
		if keys[ms[i].key] {
			w.replace(ms[i-1].val.end, ms[i].val.end, "", "")
		}
	}
}

// stringUnit renders {"state", "value"} at indentation ind.
func (w *writer) stringUnit(state, value string) render {
	return func(ind string) string {
		in := ind + indentStep
		return "{\n" + in + `"state"` + w.sep + quote(state) + ",\n" +
			in + `"value"` + w.sep + quote(value) + "\n" + ind + "}"
	}
}

// object renders an object of the given members, in their order.
func (w *writer) object(keys []string, vals []render) render {
	return func(ind string) string {
		in := ind + indentStep
		var b strings.Builder
		b.WriteString("{\n")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(in + quote(k) + w.sep + vals[i](in))
		}
		b.WriteString("\n" + ind + "}")
		return b.String()
	}
}

// localization renders a new localization holding e's target: a
// stringUnit, or plural variations in Xcode's alphabetical category order
// with the empty forms left out.
func (w *writer) localization(e formats.Edit, cats []string, plural bool) render {
	state := stateFor("", false, e.Fuzzy)
	if !plural {
		return w.object([]string{"stringUnit"}, []render{w.stringUnit(state, form(e.Target, 0))})
	}
	var keys []string
	forms := map[string]string{}
	for i, cat := range cats {
		if f := form(e.Target, i); f != "" {
			keys = append(keys, cat)
			forms[cat] = f
		}
	}
	sort.Strings(keys)
	vals := make([]render, len(keys))
	for i, k := range keys {
		vals[i] = w.object([]string{"stringUnit"}, []render{w.stringUnit(state, forms[k])})
	}
	return w.object([]string{"variations"}, []render{
		w.object([]string{"plural"}, []render{w.object(keys, vals)}),
	})
}

func form(forms []string, i int) string {
	if i < len(forms) {
		return forms[i]
	}
	return ""
}

func empty(forms []string) bool {
	for _, f := range forms {
		if f != "" {
			return false
		}
	}
	return true
}

// stateFor is the state an edited stringUnit gets: needs_review for a
// fuzzy edit; an unchanged translated or stale value keeps its state;
// anything else becomes translated.
func stateFor(cur string, changed, fuzzy bool) string {
	switch {
	case fuzzy:
		return "needs_review"
	case !changed && (cur == "translated" || cur == "stale"):
		return cur
	}
	return "translated"
}

// setUnit writes value and state into an existing stringUnit.
func (w *writer) setUnit(su *node, value string, fuzzy bool) error {
	v := su.get("value")
	if v == nil || v.kind != kindString {
		return errorf("line %d: a stringUnit without a string value", newLines(w.c.src).at(su.start))
	}
	changed := v.str != value
	if changed {
		w.replace(v.start, v.end, quote(value), "")
	}
	if st := su.get("state"); st != nil && st.kind == kindString {
		if want := stateFor(st.str, changed, fuzzy); want != st.str {
			w.replace(st.start, st.end, quote(want), "")
		}
	}
	return nil
}

// setLeaf writes e's target into a node holding a stringUnit or plural
// variations; plural categories the node lacks are added.
func (w *writer) setLeaf(n *node, e formats.Edit, cats []string) error {
	if pl := n.object("variations").object("plural"); pl != nil {
		for i, cat := range cats {
			f := form(e.Target, i)
			cn := pl.object(cat)
			if cn == nil {
				if f != "" {
					w.insert(pl, cat, w.object([]string{"stringUnit"}, []render{w.stringUnit(stateFor("", true, e.Fuzzy), f)}), false)
				}
				continue
			}
			su := cn.object("stringUnit")
			if su == nil {
				return errorf("%q: plural category %q has no stringUnit", e.Context, cat)
			}
			if err := w.setUnit(su, f, e.Fuzzy); err != nil {
				return err
			}
		}
		return nil
	}
	su := n.object("stringUnit")
	if su == nil {
		return errorf("%q: the localization has no value of its own (it has device variations or is malformed)", e.Context)
	}
	if len(e.Target) > 1 {
		return errorf("%q: %d plural forms for a string without plural variations", e.Context, len(e.Target))
	}
	return w.setUnit(su, form(e.Target, 0), e.Fuzzy)
}

// newCatalog is the file Apply starts from for nil data.
func newCatalog(f formats.File) []byte {
	src := langCode(f.Source)
	if src == "" {
		src = "en"
	}
	return []byte("{\n  \"sourceLanguage\" : " + quote(src) + ",\n  \"strings\" : {},\n  \"version\" : \"1.0\"\n}")
}

// Apply writes edits into the localizations of f.Target's language and
// leaves every other language's bytes alone:
//   - an existing value is replaced in place, and its state set to
//     needs_review for a fuzzy edit, translated otherwise (an unchanged
//     translated or stale value keeps its state);
//   - a language the string has no localization in gets one, in Xcode's
//     sorted position and style: a stringUnit, or plural variations when
//     the edit has several forms or the source language's value has
//     plural variations; a missing plural category is added likewise;
//   - an empty target removes the language's localization of a plain or
//     plural string, since absence is how Xcode says untranslated, and
//     adds nothing to a string that has none;
//   - a key the catalog lacks is appended to "strings" with
//     "extractionState" : "manual" and the language's localization;
//   - device variations and substitution arguments are written where the
//     language already has them; adding a localization to a string whose
//     source has them is an error, left to Xcode.
//
// Nil data is a new catalog with f.Source as its sourceLanguage.
func (Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	if data == nil {
		data = newCatalog(f)
	}
	c, err := load(data)
	if err != nil {
		return nil, err
	}
	if len(edits) == 0 {
		return data, nil
	}
	w := newWriter(c)
	lang, cats := c.tag(f), plurals(f.Target)
	if lang == "" {
		return nil, errorf("no target language to write")
	}
	// The last edit of a context wins.
	last := map[string]int{}
	for i, e := range edits {
		last[e.Context] = i
		for _, t := range e.Target {
			if !utf8.ValidString(t) {
				return nil, errorf("%q: the target is not valid UTF-8", e.Context)
			}
		}
	}
	for i, e := range edits {
		if last[e.Context] != i {
			continue
		}
		if err := w.apply(e, lang, cats); err != nil {
			return nil, err
		}
	}
	w.appendEntries()
	return w.bytes()
}

func (w *writer) apply(e formats.Edit, lang string, cats []string) error {
	c := w.c
	t := c.resolve(e.Context)
	if t.entry == nil {
		if empty(e.Target) {
			return nil
		}
		loc := w.localization(e, cats, len(e.Target) > 1)
		w.newKeys = append(w.newKeys, t.key)
		w.newEntries = append(w.newEntries, w.object([]string{"extractionState", "localizations"}, []render{
			func(string) string { return quote("manual") },
			w.object([]string{lang}, []render{loc}),
		}))
		return nil
	}
	loc := localization(t.entry, lang)
	switch {
	case t.device != "":
		n := device(loc, t.device)
		if n == nil {
			return errorf("%q: %s has no %q device variation to write; add it in Xcode", e.Context, lang, t.device)
		}
		return w.setLeaf(n, e, cats)
	case t.subst != "":
		n := subst(loc, t.subst)
		if n == nil {
			return errorf("%q: %s has no %q substitution to write; add it in Xcode", e.Context, lang, t.subst)
		}
		return w.setLeaf(n, e, cats)
	}
	if loc != nil {
		if devices, substs := shape(loc); empty(e.Target) && len(devices) == 0 && len(substs) == 0 {
			w.remove(t.entry.object("localizations"), map[string]bool{lang: true})
			return nil
		}
		return w.setLeaf(loc, e, cats)
	}
	if empty(e.Target) || lang == c.source && len(e.Target) == 1 && e.Target[0] == t.key && !e.Fuzzy {
		return nil // absence says the same: untranslated, or the key as source
	}
	src := localization(t.entry, c.source)
	if devices, substs := shape(src); len(devices) > 0 || len(substs) > 0 {
		return errorf("%q: adding a %s localization to a string with device variations or substitutions is left to Xcode", e.Context, lang)
	}
	newLoc := w.localization(e, cats, len(e.Target) > 1 || read(src, nil).plural)
	if locs := t.entry.object("localizations"); locs != nil {
		w.insert(locs, lang, newLoc, false)
	} else if t.entry.get("localizations") != nil {
		return errorf("%q: \"localizations\" is not an object", e.Context)
	} else {
		w.insert(t.entry, "localizations", w.object([]string{lang}, []render{newLoc}), false)
	}
	return nil
}

// Remove takes keys out of the catalog. For the source language (or the
// template) a key's whole entry goes, with every language's value;
// for any other language only that language's localization of the
// entry. A context naming a device variation or a substitution removes
// its whole entry (or localization) likewise. Keys the file lacks are
// ignored.
func (Codec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	c, err := load(data)
	if err != nil {
		return nil, err
	}
	w := newWriter(c)
	lang := c.tag(f)
	whole := f.Template || lang == c.source
	entries := map[string]bool{}
	for _, k := range keys {
		if t := c.resolve(k.Context); t.entry != nil {
			entries[t.key] = true
		}
	}
	if whole {
		w.remove(c.strings, entries)
		return w.bytes()
	}
	for _, m := range c.strings.members {
		if entries[m.key] && c.strings.object(m.key) == m.val {
			if locs := m.val.object("localizations"); locs != nil {
				w.remove(locs, map[string]bool{lang: true})
			}
		}
	}
	return w.bytes()
}

// quote writes s as Xcode does: UTF-8 as is, with only '"', '\\' and
// control characters escaped (the short forms where JSON has them).
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
