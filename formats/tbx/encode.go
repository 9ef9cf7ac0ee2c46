package tbx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Errors Encode and EncodeTerms return, wrapped with the offending context.
var (
	// ErrUnknownUnit means an edit names no termEntry of the file.
	ErrUnknownUnit = errors.New("tbx: no such unit")
	// ErrAmbiguousEdit means a formats.Edit names a Context that several
	// termEntries share (in Weblate-written files most have no id, so
	// Context is ""); use EncodeTerms, which also matches the source term.
	ErrAmbiguousEdit = errors.New("tbx: several units have this context")
	// ErrPlural means an edit carries more than one form: TBX has no plurals.
	ErrPlural = errors.New("tbx: terms have no plural forms")
	// ErrNoSourceTerm means a target langSet had to be added to an entry
	// that has no source langSet to place it after.
	ErrNoSourceTerm = errors.New("tbx: entry has no source langSet")
	// ErrNoBody means an entry had to be added to a file that has neither
	// a termEntry to place it after nor a <body> to place it in.
	ErrNoBody = errors.New("tbx: no termEntry or body to add an entry to")
)

// Edit replaces the target term of the termEntries whose source term and
// id are Source and Context. It is the TBX form of formats.Edit, whose
// Context alone does not identify a glossary entry.
type Edit struct {
	Source  string
	Context string
	Target  []string
	// Add, when no termEntry matches, appends a new one (see
	// EncodeTerms) instead of failing with ErrUnknownUnit.
	Add bool
}

// Encode writes f to w with the edits applied, each matched to the one
// termEntry whose Context (id attribute) equals Edit.Context. With no
// edits the output is byte for byte what was decoded. It returns an error
// wrapping ErrUnknownUnit, ErrAmbiguousEdit or ErrPlural before writing
// anything when an edit cannot be applied.
func (f *File) Encode(w io.Writer, sourceLang, targetLang string, edits []formats.Edit) error {
	if len(edits) == 0 {
		_, err := w.Write(f.src)
		return err
	}
	texts := make(map[int]string, len(edits))
	for _, ed := range edits {
		text, err := single(ed.Target)
		if err != nil {
			return fmt.Errorf("edit %q: %w", ed.Context, err)
		}
		found := -1
		for i := range f.entries {
			if f.entries[i].id != ed.Context {
				continue
			}
			if found >= 0 {
				return fmt.Errorf("edit %q: %w", ed.Context, ErrAmbiguousEdit)
			}
			found = i
		}
		if found < 0 {
			return fmt.Errorf("edit %q: %w", ed.Context, ErrUnknownUnit)
		}
		texts[found] = text
	}
	return f.write(w, sourceLang, targetLang, texts)
}

// EncodeTerms writes f to w with the edits applied, each to every
// termEntry whose source term and Context equal the edit's, so that
// duplicate entries, which Units returns separately, stay identical. With
// no edits the output is byte for byte what was decoded. Errors are as for
// Encode, without ErrAmbiguousEdit; a later edit of the same entry wins.
//
// An edit with Add set that matches no entry appends a new termEntry
// (built with etree, see build.go) holding the source term and the target
// term, <term/> when the target is empty, with the edit's Context as its
// id when not "". New entries go after the file's last termEntry, laid
// out like it (one langSet per line, or all on one line), or, in a file
// without entries, before </body>, indented one level deeper than it; a
// file with neither gets ErrNoBody. Only the new entries' bytes are
// added.
func (f *File) EncodeTerms(w io.Writer, sourceLang, targetLang string, edits []Edit) error {
	if len(edits) == 0 {
		_, err := w.Write(f.src)
		return err
	}
	type key struct{ source, context string }
	byKey := make(map[key][]int, len(f.entries))
	for i := range f.entries {
		e := &f.entries[i]
		si, _ := e.pick(sourceLang, targetLang)
		k := key{e.termText(si), e.id}
		byKey[k] = append(byKey[k], i)
	}
	texts := make(map[int]string, len(edits))
	var added []Edit
	for _, ed := range edits {
		text, err := single(ed.Target)
		if err != nil {
			return fmt.Errorf("edit %q/%q: %w", ed.Source, ed.Context, err)
		}
		idx := byKey[key{ed.Source, ed.Context}]
		if len(idx) == 0 && ed.Add {
			added = append(added, ed)
			continue
		}
		if len(idx) == 0 {
			return fmt.Errorf("edit %q/%q: %w", ed.Source, ed.Context, ErrUnknownUnit)
		}
		for _, i := range idx {
			texts[i] = text
		}
	}
	var extra []splice
	if len(added) > 0 {
		s, err := f.addEntries(sourceLang, targetLang, added)
		if err != nil {
			return err
		}
		extra = append(extra, s)
	}
	return f.write(w, sourceLang, targetLang, texts, extra...)
}

// addEntries returns the splice that appends a termEntry per edit; a
// later edit of the same (Source, Context) wins.
func (f *File) addEntries(sourceLang, targetLang string, added []Edit) (splice, error) {
	// Each new entry is written as before + entry + after, its langSets
	// each preceded by inner and its end tag by end.
	var (
		at                           int
		p, before, after, inner, end string
	)
	if n := len(f.entries); n > 0 {
		// After the last entry, laid out like it.
		last := &f.entries[n-1]
		at, p, before = last.end, prefix(formats.RawElementName(f.src, last.start)), lineBreak(f.src, last.start)
		if len(last.langSets) > 0 {
			if inner = lineBreak(f.src, last.langSets[0].start); inner != "" {
				end = before
			}
		}
	} else {
		if f.bodyEnd < 0 {
			return splice{}, ErrNoBody
		}
		// Before </body>, one level in from the body's line, the end tag
		// back on a line of its own.
		at, p = f.bodyEnd, prefix(f.bodyName)
		if nl := lineBreak(f.src, f.bodyEnd); nl != "" {
			before, after, inner, end = indentUnit, nl, nl+indentUnit+indentUnit, nl+indentUnit
		}
	}
	last := map[Term]int{}
	for i, ed := range added {
		last[Term{ed.Source, ed.Context}] = i
	}
	var b strings.Builder
	for i, ed := range added {
		if last[Term{ed.Source, ed.Context}] != i {
			continue
		}
		text, _ := single(ed.Target)
		b.WriteString(before)
		b.WriteString(xmlString(entryElement(p, ed.Context, []side{{sourceLang, ed.Source}, {targetLang, text}}, inner, end)))
		b.WriteString(after)
	}
	return splice{at, at, b.String()}, nil
}

// indentUnit is one level of indentation in the files Translate Toolkit
// writes.
const indentUnit = "    "

func single(target []string) (string, error) {
	switch len(target) {
	case 0:
		return "", nil
	case 1:
		return target[0], nil
	}
	return "", ErrPlural
}

// splice replaces src[start:end] with text.
type splice struct {
	start, end int
	text       string
}

// write copies f.src to w, replacing the target term of each entry in
// texts (entry index → new term).
func (f *File) write(w io.Writer, sourceLang, targetLang string, texts map[int]string, extra ...splice) error {
	splices := make([]splice, 0, len(texts)+len(extra))
	splices = append(splices, extra...)
	for i, text := range texts {
		s, ok, err := f.entries[i].splice(f.src, sourceLang, targetLang, text)
		if err != nil {
			e := &f.entries[i]
			return fmt.Errorf("entry on line %d: %w", e.line, err)
		}
		if ok {
			splices = append(splices, s)
		}
	}
	slices.SortFunc(splices, func(a, b splice) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(f.src) + 64*len(splices))
	pos := 0
	for _, s := range splices {
		b.Write(f.src[pos:s.start])
		b.WriteString(s.text)
		pos = s.end
	}
	b.Write(f.src[pos:])
	_, err := io.WriteString(w, b.String())
	return err
}

// splice returns the change that sets the entry's target term to text;
// ok is false when the file already says so.
func (e *entry) splice(src []byte, sourceLang, targetLang, text string) (s splice, ok bool, err error) {
	si, ti := e.pick(sourceLang, targetLang)
	if ti < 0 {
		if text == "" {
			return s, false, nil // no langSet already means untranslated
		}
		if si < 0 {
			return s, false, ErrNoSourceTerm
		}
		// Put the new langSet on its own line after the source langSet,
		// indented like it, as Translate Toolkit writes one per line.
		ls := &e.langSets[si]
		ins := xmlString(langSetElement(prefix(ls.rawName), targetLang, text))
		return splice{ls.end, ls.end, lineBreak(src, ls.start) + ins}, true, nil
	}
	ls := &e.langSets[ti]
	tm := ls.term
	switch {
	case tm != nil && tm.text == text:
		return s, false, nil
	case tm != nil && tm.selfClosing:
		// <term/> becomes <term>text</term>.
		return splice{tm.start, tm.end, ">" + escapeText(text) + "</" + tm.rawName + ">"}, true, nil
	case tm != nil:
		return splice{tm.start, tm.end, escapeText(text)}, true, nil
	case text == "":
		return s, false, nil
	}
	tig := xmlString(tigElement(prefix(ls.rawName), text))
	if ls.endTag < 0 { // <langSet xml:lang="de"/>
		return splice{ls.end - 2, ls.end, ">" + tig + "</" + ls.rawName + ">"}, true, nil
	}
	return splice{ls.endTag, ls.endTag, tig}, true, nil
}

// prefix returns "p:" for an element written as "p:name", else "".
func prefix(rawName string) string {
	if i := strings.IndexByte(rawName, ':'); i >= 0 {
		return rawName[:i+1]
	}
	return ""
}

// lineBreak returns the line break and indentation of the line holding
// src[start] when that element starts its line, else "".
func lineBreak(src []byte, start int) string {
	nl := bytes.LastIndexByte(src[:start], '\n')
	if nl < 0 {
		return ""
	}
	indent := src[nl+1 : start]
	for _, c := range indent {
		if c != ' ' && c != '\t' {
			return ""
		}
	}
	if nl > 0 && src[nl-1] == '\r' {
		return "\r\n" + string(indent)
	}
	return "\n" + string(indent)
}

// escapeText escapes s for element content, for the term text replaced
// in place. Only &, < and > need it (">" for "]]>"); "\r" is written as a
// reference because a parser would turn a literal one into "\n". Invalid
// UTF-8 and characters XML cannot hold become U+FFFD, as in encoding/xml,
// so the output always parses. It escapes as writeSettings make etree
// escape the markup Tolk adds (build.go).
func escapeText(s string) string {
	s = clean(s)
	if !strings.ContainsAny(s, "&<>\r") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isXMLChar reports whether r may appear in an XML 1.0 document (the Char
// production of the spec, section 2.2).
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
