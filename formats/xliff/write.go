package xliff

import (
	"errors"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// ErrNoPlace is returned by Apply when a unit must be added to a file
// that has no <body> (1.2) or <file> (2.0) to hold it.
var ErrNoPlace = errors.New("xliff: the file has no element to add units to")

// Apply writes edits into data. An edit reaches every unit with its
// Context; when several units share it, those whose source is the edit's
// Source[0] (when any is). A changed target replaces only the target's
// content; a missing <target> is added after <source>, indented like
// it; an empty target removes the <target> element (the reference's
// RichXliffUnit.set_target does the same). The state attributes change
// only when the edit's Fuzzy/Approved differ from what the file says
// (see status and stateValue). An edit for a key the file lacks adds a
// unit after the last unit of the last <file>, in the file's indentation,
// unless its target is empty. Nil data starts from a new document for
// f.Source and f.Target.
func (c Codec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	if data == nil {
		data = c.newDocument(f)
	}
	d, err := c.load(data)
	if err != nil {
		return nil, err
	}
	if c.po {
		if edits, err = d.poEdits(edits); err != nil {
			return nil, err
		}
	}
	index := d.index()
	chosen := make(map[int]formats.Edit)
	var order []int
	var added []formats.Edit
	seen := make(map[string]int)
	for _, ed := range edits {
		hits := d.match(index, ed.Context, ed.Source)
		if len(hits) == 0 {
			if target(ed) == "" {
				continue
			}
			if i, ok := seen[ed.Context]; ok {
				added[i] = ed
				continue
			}
			seen[ed.Context] = len(added)
			added = append(added, ed)
			continue
		}
		for _, i := range hits {
			if _, ok := chosen[i]; !ok {
				order = append(order, i)
			}
			chosen[i] = ed
		}
	}
	var ps []patch
	for _, i := range order {
		e := &d.entries[i]
		if f.Template && e.target == nil && target(chosen[i]) == e.srcText {
			// A template's unit without a target reads its source as the
			// target (Decode); writing that value back changes nothing.
			continue
		}
		ps = append(ps, d.editPatches(e, chosen[i])...)
	}
	if len(added) > 0 {
		p, err := d.addUnits(added)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return splice(data, ps), nil
}

// Remove takes out the trans-units (1.2) or units (2.0) with the given
// keys, each with its lines when it stands alone on them and with the
// one-line XML comments right above it. A key naming one
// segment of a unit of several removes the whole unit.
func (c Codec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	d, err := c.load(data)
	if err != nil {
		return nil, err
	}
	index := d.index()
	done := make(map[int]bool)
	var ps []patch
	if c.po {
		// A plural unit goes with its group.
		for _, g := range d.groups {
			if !slices.ContainsFunc(keys, func(k formats.Key) bool { return k.Context == g.ctx }) {
				continue
			}
			s, e := wholeLines(d.src, g.el.tag.start, g.el.end)
			ps = append(ps, patch{s, e, ""})
			for _, m := range g.members {
				done[d.entries[m].owner.tag.start] = true
			}
		}
	}
	for _, k := range keys {
		var src []string
		if k.Source != "" {
			src = []string{k.Source}
		}
		for _, i := range d.match(index, k.Context, src) {
			o := d.entries[i].owner
			if done[o.tag.start] {
				continue
			}
			done[o.tag.start] = true
			s, e := wholeLines(d.src, o.tag.start, o.end)
			if s != o.tag.start {
				s = commentsAbove(d.src, s)
			}
			ps = append(ps, patch{s, e, ""})
		}
	}
	return splice(data, ps), nil
}

// Emptied returns the template with every <target> removed and the
// target language set to f.Target (target-language on each 1.2 <file>,
// trgLang on the 2.0 <xliff>), the file of a new translation. 1.2
// approved="yes" becomes "no" and 2.0 segment states are dropped, so no
// unit of the new file claims a state it does not have.
func (c Codec) Emptied(template []byte, f formats.File) ([]byte, error) {
	d, err := c.load(template)
	if err != nil {
		return nil, err
	}
	lang := bcp(f.Target.Code)
	var ps []patch
	if d.v2 {
		ps = append(ps, setAttr(d.src, d.root, "trgLang", lang)...)
	} else {
		for _, fe := range d.files {
			ps = append(ps, setAttr(d.src, fe.tag, "target-language", lang)...)
		}
	}
	for i := range d.entries {
		e := &d.entries[i]
		if e.target != nil {
			s, end := wholeLines(d.src, e.target.tag.start, e.target.end)
			ps = append(ps, patch{s, end, ""})
		}
		if d.v2 {
			ps = append(ps, dropAttr(d.src, e.segment.tag, "state")...)
		} else if e.approved == "yes" {
			ps = append(ps, setAttr(d.src, e.owner.tag, "approved", "no")...)
		}
	}
	return splice(template, ps), nil
}

// index maps each Context to its entries, in file order.
func (d *doc) index() map[string][]int {
	m := make(map[string][]int, len(d.entries))
	for i := range d.entries {
		m[d.entries[i].ctx] = append(m[d.entries[i].ctx], i)
	}
	return m
}

// match returns the entries an edit or key reaches (see Apply).
func (d *doc) match(index map[string][]int, ctx string, source []string) []int {
	hits := index[ctx]
	if len(hits) < 2 || len(source) == 0 {
		return hits
	}
	var same []int
	for _, i := range hits {
		if d.entries[i].srcText == source[0] {
			same = append(same, i)
		}
	}
	if len(same) == 0 {
		return hits
	}
	return same
}

func target(ed formats.Edit) string {
	if len(ed.Target) == 0 {
		return ""
	}
	return ed.Target[0]
}

// editPatches returns the patches one edit makes to one entry.
func (d *doc) editPatches(e *entry, ed formats.Edit) []patch {
	src := d.src
	text := target(ed)
	var ps []patch
	if text == "" {
		if e.tgtText == "" {
			return nil // untranslated already; an empty <target/> may stay
		}
		if e.target != nil {
			s, end := wholeLines(src, e.target.tag.start, e.target.end)
			ps = append(ps, patch{s, end, ""})
		}
		if !d.v2 && e.approved == "yes" {
			ps = append(ps, setAttr(src, e.owner.tag, "approved", "no")...)
		}
		return ps
	}
	wf, wa := wantState(ed.Fuzzy, ed.Approved)
	cf, ca := d.status(e, text)
	stateChanges := cf != wf || ca != wa
	if e.target != nil {
		if text != e.tgtText {
			t := e.target
			if t.selfClosing {
				ps = append(ps, patch{t.tag.end - 2, t.tag.end, ">" + d.markup(text) + "</" + t.name + ">"})
			} else {
				ps = append(ps, patch{t.inner.start, t.inner.end, d.markup(text)})
			}
		}
		if stateChanges && !d.v2 {
			ps = append(ps, setAttr(src, e.target.tag, "state", d.stateValue(wf, wa))...)
		}
	} else {
		attrs := ""
		if !d.v2 {
			attrs = ` state="` + d.stateValue(wf, wa) + `"`
			stateChanges = stateChanges || wa != (e.approved == "yes")
		}
		ps = append(ps, d.insertTarget(e, attrs, d.markup(text)))
	}
	if !stateChanges {
		return ps
	}
	if d.v2 {
		return append(ps, setAttr(src, e.segment.tag, "state", d.stateValue(wf, wa))...)
	}
	switch {
	case wa:
		ps = append(ps, setAttr(src, e.owner.tag, "approved", "yes")...)
	case e.approved == "yes":
		ps = append(ps, setAttr(src, e.owner.tag, "approved", "no")...)
	}
	return ps
}

// insertTarget returns the patch adding <target> after the entry's
// <source>, on a line of its own indented like the source when the
// source has a line of its own.
func (d *doc) insertTarget(e *entry, attrs, content string) patch {
	name := "target"
	if e.source != nil {
		if i := strings.IndexByte(e.source.name, ':'); i >= 0 {
			name = e.source.name[:i+1] + name
		}
	}
	el := "<" + name + attrs + ">" + content + "</" + name + ">"
	if e.source != nil {
		at := e.source.end
		if indent, ok := lineIndent(d.src, e.source.tag.start); ok {
			return patch{at, at, newline(d.src) + indent + el}
		}
		return patch{at, at, el}
	}
	// No source: the target opens the segment or trans-unit, which a
	// self-closing one must first be given an end tag for.
	parent := &e.owner
	if d.v2 {
		parent = &e.segment
	}
	if parent.selfClosing {
		return patch{parent.tag.end - 2, parent.tag.end, ">" + el + "</" + parent.name + ">"}
	}
	return patch{parent.tag.end, parent.tag.end, el}
}

// addUnits returns the patch adding a unit for each edit after the last
// unit of the last <file> that can hold one.
func (d *doc) addUnits(edits []formats.Edit) (patch, error) {
	fi := -1
	for i := range d.files {
		if d.files[i].close >= 0 {
			fi = i
		}
	}
	if fi < 0 {
		return patch{}, ErrNoPlace
	}
	fe := d.files[fi]
	nl := newline(d.src)
	ind, step := d.unitIndent(fi)
	var b strings.Builder
	for _, ed := range edits {
		b.WriteString(nl)
		d.writeUnit(&b, fe, ed, ind, step, nl)
	}
	if fe.lastEnd > 0 {
		return patch{fe.lastEnd, fe.lastEnd, b.String()}, nil
	}
	// No unit yet: put the new ones on lines of their own before the
	// closing tag, which keeps its indentation.
	if closeIndent, ok := lineIndent(d.src, fe.close); ok {
		at := fe.close - len(closeIndent)
		return patch{at, at, strings.TrimPrefix(b.String(), nl) + nl}, nil
	}
	return patch{fe.close, fe.close, b.String() + nl}, nil
}

// unitIndent returns the indentation of the units of file fi and the
// step by which their children are indented further, from the file's
// last unit, or from its closing tag and two spaces.
func (d *doc) unitIndent(fi int) (ind, step string) {
	fe := d.files[fi]
	step = "  "
	for i := len(d.entries) - 1; i >= 0; i-- {
		e := &d.entries[i]
		if e.owner.end != fe.lastEnd || fe.lastEnd == 0 {
			continue
		}
		ind, _ = lineIndent(d.src, e.owner.tag.start)
		child := e.source
		if d.v2 {
			child = &e.segment
		}
		if child != nil {
			if ci, ok := lineIndent(d.src, child.tag.start); ok && strings.HasPrefix(ci, ind) && len(ci) > len(ind) {
				step = ci[len(ind):]
			}
		}
		return ind, step
	}
	closeIndent, _ := lineIndent(d.src, fe.close)
	return closeIndent + step, step
}

// writeUnit writes a new unit for ed, each line indented, without a
// final newline. Its key reads back as ed.Context (unitContext): 1.2
// units get id and resname (or, for a context "original///id" of this
// file, that id alone); 2.0 units get the context as id.
func (d *doc) writeUnit(b *strings.Builder, fe fileEl, ed formats.Edit, ind, step, nl string) {
	source := ""
	if len(ed.Source) > 0 {
		source = ed.Source[0]
	}
	wf, wa := wantState(ed.Fuzzy, ed.Approved)
	state := d.stateValue(wf, wa)
	q := func(s string) string { return escapeAttr(s, '"') }
	if d.v2 {
		b.WriteString(ind + `<unit id="` + q(ed.Context) + `">` + nl)
		b.WriteString(ind + step + `<segment state="` + state + `">` + nl)
		b.WriteString(ind + step + step + "<source>" + d.markup(source) + "</source>" + nl)
		b.WriteString(ind + step + step + "<target>" + d.markup(target(ed)) + "</target>" + nl)
		b.WriteString(ind + step + "</segment>" + nl)
		b.WriteString(ind + "</unit>")
		return
	}
	b.WriteString(ind + "<trans-unit ")
	if id, ok := strings.CutPrefix(ed.Context, fe.original+"///"); ok && fe.original != "" {
		b.WriteString(`id="` + q(id) + `"`)
	} else {
		b.WriteString(`id="` + q(ed.Context) + `" resname="` + q(ed.Context) + `"`)
	}
	// xml:space="preserve" as the reference's XliffFormat.construct_unit
	// sets it, so that the strings keep their white space.
	b.WriteString(` xml:space="preserve"`)
	if wa {
		b.WriteString(` approved="yes"`)
	}
	b.WriteString(">" + nl)
	b.WriteString(ind + step + "<source>" + d.markup(source) + "</source>" + nl)
	b.WriteString(ind + step + `<target state="` + state + `">` + d.markup(target(ed)) + "</target>" + nl)
	b.WriteString(ind + "</trans-unit>")
}

// newDocument returns an empty document of the codec's version for f's
// languages, laid out as Translate Toolkit writes one.
func (c Codec) newDocument(f formats.File) []byte {
	src, tgt := escapeAttr(bcp(f.Source.Code), '"'), escapeAttr(bcp(f.Target.Code), '"')
	if c.version == V20 {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
			`<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="` + src + `" trgLang="` + tgt + `">` + "\n" +
			`  <file id="f1">` + "\n" +
			"  </file>\n" +
			"</xliff>\n")
	}
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">` + "\n" +
		`  <file original="NoName" source-language="` + src + `" target-language="` + tgt + `" datatype="plaintext">` + "\n" +
		"    <body>\n" +
		"    </body>\n" +
		"  </file>\n" +
		"</xliff>\n")
}

// bcp turns a Tolk language code into the BCP 47 form XLIFF's language
// attributes use ("pt_BR" → "pt-BR"), as the reference's language_format
// "bcp" does.
func bcp(code string) string { return strings.ReplaceAll(code, "_", "-") }
