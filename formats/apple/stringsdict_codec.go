package apple

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tolk-project/tolk/formats"
)

// StringsdictCodec reads and writes Apple .stringsdict files (XML
// property lists of plural rules), monolingual. It is safe for concurrent
// use.
type StringsdictCodec struct{}

// Stringsdict is the codec of the reference's "stringsdict" format.
var Stringsdict StringsdictCodec

var (
	_ formats.Codec         = StringsdictCodec{}
	_ formats.Templater     = StringsdictCodec{}
	_ formats.PathLanguages = StringsdictCodec{}
)

// newDict is what the reference writes for a new translation.
const newDict = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
    <dict>
    </dict>
</plist>
`

// plurals returns the categories units are read and written in.
func plurals(f formats.File) []string {
	if len(f.Target.Plurals) == 0 {
		return []string{"one", "other"}
	}
	return f.Target.Plurals
}

// WithZero returns plurals with "zero" in front when it lacks it: the
// forms the reference gives a language in .stringsdict files, where every
// language may say something special for zero (weblate's
// StringsdictFormat.get_plural, Plural.SOURCE_CLDR_ZERO). Pass the result
// as File.Target.Plurals to read and write the zero category too.
func WithZero(plurals []string) []string {
	for _, c := range plurals {
		if c == "zero" {
			return plurals
		}
	}
	return append([]string{"zero"}, plurals...)
}

// Decode returns, for each top-level key in file order, a unit whose
// Context is the key and whose Target is its NSStringLocalizedFormatKey,
// then one unit per plural variable of the key, Context "key:variable",
// with one Target form per category of f.Target.Plurals ("" for a
// category the variable lacks; categories the language does not have are
// not read). This is how the reference's translate-toolkit splits a file.
// A nil f.Target.Plurals means "one", "other". When a key repeats, the
// last one wins. Malformed XML, a value that is not a <dict> where the
// plist needs one, and a variable of another rule type than
// NSStringPluralRuleType are a *formats.ParseError.
func (StringsdictCodec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	df, err := parseDict(data)
	if err != nil {
		return nil, err
	}
	return df.units(plurals(f)), nil
}

// Apply writes edits into data, replacing the text of edited <string>
// elements only. An edit's Context is a key (its format string) or
// "key:variable" (its plural forms, Target[i] for the i-th category of
// f.Target.Plurals). A category the variable lacks is added in CLDR order
// with the file's indentation; a category whose new form is empty is
// taken out, as the reference writes no empty forms. A variable or key
// the file lacks is added after the last one. Nil data is the reference's
// new, empty file.
func (StringsdictCodec) Apply(data []byte, f formats.File, edits []formats.Edit) ([]byte, error) {
	if data == nil {
		data = []byte(newDict)
	}
	df, err := parseDict(data)
	if err != nil {
		return nil, err
	}
	text := data
	if len(edits) > 0 && bytes.Contains(data, []byte("<dict/>")) {
		// An empty <dict/> cannot take children; it is written out as
		// <dict></dict> first, the one change beyond the edited values.
		text = bytes.ReplaceAll(data, []byte("<dict/>"), []byte("<dict></dict>"))
		if df, err = parseDict(text); err != nil {
			return nil, err
		}
	}
	w := &dictWriter{df: df, plurals: plurals(f), ind: df.indentation()}
	for _, e := range edits {
		w.edit(e)
	}
	w.addEntries()
	if len(w.reps) == 0 {
		return data, nil
	}
	return []byte(splice(df.text, append(w.reps, w.closers...))), nil
}

// opened notes that content goes into block b; when b was empty on one
// line (<dict></dict>), its </dict> then moves to a line of its own,
// indented by ind.
func (w *dictWriter) opened(b *block, ind string) {
	if b.lastKey >= 0 || strings.Contains(w.df.text[b.dictOpen:b.dictClose], "\n") {
		return
	}
	if w.closed == nil {
		w.closed = make(map[int]bool)
	}
	if !w.closed[b.dictClose] {
		w.closed[b.dictClose] = true
		w.closers = append(w.closers, rep{b.dictClose, b.dictClose, "\n" + ind})
	}
}

// Remove deletes the keys (Context "key") or variables (Context
// "key:variable") named, as whole lines.
func (StringsdictCodec) Remove(data []byte, f formats.File, keys []formats.Key) ([]byte, error) {
	df, err := parseDict(data)
	if err != nil {
		return nil, err
	}
	var reps []rep
	for _, k := range keys {
		if i, ok := df.index[k.Context]; ok {
			for j := range df.entries {
				if e := &df.entries[j]; e.name == df.entries[i].name {
					s, end := lineSpan(df.text, e.keyStart, e.end)
					reps = append(reps, rep{s, end, ""})
				}
			}
			continue
		}
		if _, v := df.variable(k.Context); v != nil {
			s, end := lineSpan(df.text, v.keyStart, v.end)
			reps = append(reps, rep{s, end, ""})
		}
	}
	if len(reps) == 0 {
		return data, nil
	}
	return []byte(splice(df.text, reps)), nil
}

// Emptied returns the template with every plural category taken out of
// every variable, keys, format strings and value types kept: the file of
// a new translation, as the reference writes one (it drops empty forms).
func (StringsdictCodec) Emptied(template []byte, f formats.File) ([]byte, error) {
	df, err := parseDict(template)
	if err != nil {
		return nil, err
	}
	var reps []rep
	for i := range df.entries {
		for j := range df.entries[i].vars {
			for _, c := range df.entries[i].vars[j].cats {
				s, end := lineSpan(df.text, c.keyStart, c.str.tagEnd)
				reps = append(reps, rep{s, end, ""})
			}
		}
	}
	return []byte(splice(df.text, reps)), nil
}

// variable finds the variable a "key:variable" Context names, splitting
// at the last ':' as the reference does.
func (df *dictFile) variable(ctx string) (*entry, *variable) {
	i := strings.LastIndexByte(ctx, ':')
	if i < 0 {
		return nil, nil
	}
	n, ok := df.index[ctx[:i]]
	if !ok {
		return nil, nil
	}
	e := &df.entries[n]
	for j := range e.vars {
		if e.vars[j].name == ctx[i+1:] {
			return e, &e.vars[j]
		}
	}
	return e, nil
}

// indent returns the blanks in front of offset at on its line, "" when
// something else precedes it there.
func (df *dictFile) indent(at int) string {
	ls := strings.LastIndexByte(df.text[:at], '\n') + 1
	if s := df.text[ls:at]; strings.Trim(s, " \t") == "" {
		return s
	}
	return ""
}

// indentation returns the file's indentation step: what a <dict>'s
// children are indented by beyond the <dict> itself.
func (df *dictFile) indentation() string {
	outer := df.indent(df.top.keyStart)
	for _, e := range df.entries {
		if in := df.indent(e.keyStart); len(in) > len(outer) && strings.HasPrefix(in, outer) {
			return in[len(outer):]
		}
	}
	if strings.Contains(df.text, "\n\t<") {
		return "\t"
	}
	return "    "
}

// dictWriter collects the reps of one Apply.
type dictWriter struct {
	df      *dictFile
	plurals []string
	ind     string
	reps    []rep
	// new holds edits for keys the file lacks, by key in first-seen order.
	newKeys []string
	newVars map[string][]formats.Edit
	newFmt  map[string]string
	addVars map[*entry][]formats.Edit // variables missing from an existing key
	addTo   []*entry                  // the keys of addVars in first-seen order
	closers []rep                     // line breaks before the </dict> of filled empty dicts
	closed  map[int]bool              // dictClose offsets in closers
}

func (w *dictWriter) edit(e formats.Edit) {
	df := w.df
	if i, ok := df.index[e.Context]; ok {
		en := &df.entries[i]
		val := firstForm(e.Target)
		switch {
		case en.format == nil:
			if val != "" {
				in := df.indent(en.keyStart) + w.ind
				at := en.dictOpen
				w.opened(&en.block, df.indent(en.keyStart))
				w.reps = append(w.reps, rep{at, at, "\n" + in + "<key>" + formatKey + "</key>\n" + in + "<string>" + escapeXML(val) + "</string>"})
			}
		case en.format.value != val:
			w.reps = append(w.reps, w.setString(en.format, val))
		}
		return
	}
	en, v := df.variable(e.Context)
	switch {
	case v != nil:
		w.editVariable(v, e.Target)
	case en != nil:
		if w.addVars == nil {
			w.addVars = make(map[*entry][]formats.Edit)
		}
		if len(w.addVars[en]) == 0 {
			w.addTo = append(w.addTo, en)
		}
		w.addVars[en] = append(w.addVars[en], e)
	default:
		w.addNew(e)
	}
}

// setString replaces the text of a <string>.
func (w *dictWriter) setString(sp *span, val string) rep {
	if sp.selfClosing {
		return rep{sp.tagStart, sp.tagEnd, "<string>" + escapeXML(val) + "</string>"}
	}
	return rep{sp.start, sp.end, escapeXML(val)}
}

// editVariable writes the forms of an existing variable.
func (w *dictWriter) editVariable(v *variable, target []string) {
	df := w.df
	type ins struct {
		at   int
		rank int
		text string
	}
	var inserts []ins
	for i, c := range w.plurals {
		val := ""
		if i < len(target) {
			val = target[i]
		}
		if cp := v.cat(c); cp != nil {
			switch {
			case cp.str.value == val:
			case val == "":
				s, end := lineSpan(df.text, cp.keyStart, cp.str.tagEnd)
				w.reps = append(w.reps, rep{s, end, ""})
			default:
				w.reps = append(w.reps, w.setString(&cp.str, val))
			}
			continue
		}
		if val == "" || cldrRank(c) < 0 {
			continue
		}
		// Before the first category that follows c in CLDR order, or
		// after the variable's last child.
		var anchor *category
		for j := range v.cats {
			if cldrRank(v.cats[j].name) > cldrRank(c) && (anchor == nil || v.cats[j].keyStart < anchor.keyStart) {
				anchor = &v.cats[j]
			}
		}
		pair := "<key>" + c + "</key>"
		if anchor != nil {
			// On lines of their own before the anchor's line, so that
			// taking the anchor out in the same Apply leaves them whole.
			in := df.indent(anchor.keyStart)
			ls := strings.LastIndexByte(df.text[:anchor.keyStart], '\n') + 1
			if ls+len(in) != anchor.keyStart {
				inserts = append(inserts, ins{anchor.keyStart, cldrRank(c), pair + "<string>" + escapeXML(val) + "</string>"})
				continue
			}
			inserts = append(inserts, ins{ls, cldrRank(c), in + pair + "\n" + in + "<string>" + escapeXML(val) + "</string>\n"})
			continue
		}
		in := df.indent(v.keyStart) + w.ind
		if v.lastKey >= 0 {
			in = df.indent(v.lastKey)
		}
		w.opened(&v.block, df.indent(v.keyStart))
		inserts = append(inserts, ins{v.lastEnd, cldrRank(c), "\n" + in + pair + "\n" + in + "<string>" + escapeXML(val) + "</string>"})
	}
	// Reps at one offset are spliced in the order given: CLDR order.
	sort.SliceStable(inserts, func(i, j int) bool { return inserts[i].rank < inserts[j].rank })
	for _, in := range inserts {
		w.reps = append(w.reps, rep{in.at, in.at, in.text})
	}
}

// addNew remembers an edit for a key the file lacks.
func (w *dictWriter) addNew(e formats.Edit) {
	if w.newVars == nil {
		w.newVars, w.newFmt = make(map[string][]formats.Edit), make(map[string]string)
	}
	key, isVar := e.Context, false
	if _, ok := w.newFmt[e.Context]; !ok {
		if i := strings.LastIndexByte(e.Context, ':'); i >= 0 {
			key, isVar = e.Context[:i], true
		}
	}
	if _, seen := w.newFmt[key]; !seen {
		if _, seen := w.newVars[key]; !seen {
			w.newKeys = append(w.newKeys, key)
		}
	}
	if isVar {
		w.newVars[key] = append(w.newVars[key], e)
	} else {
		w.newFmt[key] = firstForm(e.Target)
	}
}

// valueType is what new variables declare as NSStringFormatValueTypeKey:
// the last one the file declares (a project's plurals count with one
// integer type), "d" when it declares none.
func (df *dictFile) valueType() string {
	for i := len(df.entries) - 1; i >= 0; i-- {
		for j := len(df.entries[i].vars) - 1; j >= 0; j-- {
			if t := df.entries[i].vars[j].valueType; t != "" {
				return t
			}
		}
	}
	return "d"
}

// variableBlock writes a new variable at indentation in.
func (w *dictWriter) variableBlock(name string, target []string, in string) string {
	var b strings.Builder
	inner := in + w.ind
	b.WriteString("\n" + in + "<key>" + escapeXML(name) + "</key>\n" + in + "<dict>")
	b.WriteString("\n" + inner + "<key>NSStringFormatSpecTypeKey</key>\n" + inner + "<string>NSStringPluralRuleType</string>")
	b.WriteString("\n" + inner + "<key>NSStringFormatValueTypeKey</key>\n" + inner + "<string>" + escapeXML(w.df.valueType()) + "</string>")
	forms := map[string]string{}
	for i, c := range w.plurals {
		if i < len(target) && target[i] != "" {
			forms[c] = target[i]
		}
	}
	for _, c := range cldrOrder {
		if v, ok := forms[c]; ok {
			b.WriteString("\n" + inner + "<key>" + c + "</key>\n" + inner + "<string>" + escapeXML(v) + "</string>")
		}
	}
	b.WriteString("\n" + in + "</dict>")
	return b.String()
}

// addEntries fills in the variables and keys the file lacked.
func (w *dictWriter) addEntries() {
	df := w.df
	for _, en := range w.addTo {
		in := df.indent(en.keyStart) + w.ind
		if en.lastKey >= 0 {
			in = df.indent(en.lastKey)
		}
		var b strings.Builder
		for _, e := range w.addVars[en] {
			b.WriteString(w.variableBlock(e.Context[strings.LastIndexByte(e.Context, ':')+1:], e.Target, in))
		}
		w.opened(&en.block, df.indent(en.keyStart))
		w.reps = append(w.reps, rep{en.lastEnd, en.lastEnd, b.String()})
	}
	if len(w.newKeys) == 0 {
		return
	}
	top := &df.top
	in := df.indent(top.keyStart) + w.ind
	if top.lastKey >= 0 {
		in = df.indent(top.lastKey)
	}
	inner := in + w.ind
	var b strings.Builder
	for _, key := range w.newKeys {
		format, hasFmt := w.newFmt[key]
		if !hasFmt && len(w.newVars[key]) == 0 {
			continue
		}
		if !hasFmt {
			// A key needs a format string; one variable stands for the
			// whole string, as the reference's templates write it.
			v := w.newVars[key][0].Context
			format = "%#@" + v[strings.LastIndexByte(v, ':')+1:] + "@"
		}
		b.WriteString("\n" + in + "<key>" + escapeXML(key) + "</key>\n" + in + "<dict>")
		b.WriteString("\n" + inner + "<key>" + formatKey + "</key>\n" + inner + "<string>" + escapeXML(format) + "</string>")
		for _, e := range w.newVars[key] {
			b.WriteString(w.variableBlock(e.Context[strings.LastIndexByte(e.Context, ':')+1:], e.Target, inner))
		}
		b.WriteString("\n" + in + "</dict>")
	}
	at := top.lastEnd
	s := b.String()
	if top.lastKey < 0 {
		// An empty top dict: the new keys go on lines of their own
		// before </dict>, which keeps its indentation.
		at = top.dictOpen
		if strings.TrimSpace(df.text[top.dictOpen:top.dictClose]) == "" {
			s += "\n" + df.indent(top.keyStart)
			w.reps = append(w.reps, rep{at, top.dictClose, s})
			return
		}
	}
	w.reps = append(w.reps, rep{at, at, s})
}

// escapeXML escapes text for an XML element: &, < and >, and characters
// XML cannot hold become U+FFFD.
func escapeXML(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= utf8.MaxRune:
			b.WriteRune(r)
		default:
			b.WriteRune(utf8.RuneError)
		}
	}
	return b.String()
}
