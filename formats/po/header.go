package po

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Generator is what Tolk writes into the X-Generator header, where the
// reference writes "Weblate" and its version.
const Generator = "Tolk"

// revisionLayout is the layout of PO-Revision-Date, as gettext writes it.
const revisionLayout = "2006-01-02 15:04-0700"

// maxPlurals bounds nplurals: no language has more than six forms, and a
// hostile header must not make every unit allocate millions.
const maxPlurals = 32

// headerOrder is the order gettext and Translate Toolkit keep header
// fields in; fields it does not name sort with X-Generator.
var headerOrder = []string{
	"Project-Id-Version", "Report-Msgid-Bugs-To", "POT-Creation-Date", "PO-Revision-Date",
	"Last-Translator", "Language-Team", "Language", "MIME-Version", "Content-Type",
	"Content-Transfer-Encoding", "Plural-Forms", "X-Generator",
}

func orderOf(key string) int {
	for i, k := range headerOrder {
		if strings.EqualFold(k, key) {
			return i
		}
	}
	return len(headerOrder) - 1
}

// field is one "Key: value" line of the header.
type field struct {
	key, value string
	ifAbsent   bool // written only when the header lacks the key (or its value is unusable)
}

// headerFields splits a header value into its fields, in order. A line
// without a colon keeps the whole line as its key.
func headerFields(v string) []field {
	var fs []field
	for line := range strings.SplitSeq(v, "\n") {
		if line == "" {
			continue
		}
		k, val, _ := strings.Cut(line, ":")
		fs = append(fs, field{key: strings.TrimSpace(k), value: strings.TrimSpace(val)})
	}
	return fs
}

// headerValue returns the header's value for key, and whether the header
// has it.
func (d *doc) headerValue(key string) (string, bool) {
	if d.header < 0 {
		return "", false
	}
	for _, f := range headerFields(d.blocks[d.header].strs[0]) {
		if strings.EqualFold(f.key, key) {
			return f.value, true
		}
	}
	return "", false
}

// nplurals returns the number of plural forms the header's Plural-Forms
// gives, 0 when it gives none that can be used (absent, or the POT's
// "nplurals=INTEGER").
func (d *doc) nplurals() int {
	v, ok := d.headerValue("Plural-Forms")
	if !ok {
		return 0
	}
	return parseNplurals(v)
}

func parseNplurals(v string) int {
	i := strings.Index(v, "nplurals")
	if i < 0 {
		return 0
	}
	v = strings.TrimLeft(v[i+len("nplurals"):], " \t")
	if !strings.HasPrefix(v, "=") {
		return 0
	}
	v = strings.TrimLeft(v[1:], " \t")
	j := 0
	for j < len(v) && v[j] >= '0' && v[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(v[:j])
	if err != nil || n < 1 || n > maxPlurals {
		return 0
	}
	return n
}

// pluralForms renders a language's Plural-Forms value; "" when f does
// not know its plural rule.
func pluralForms(l formats.Language) string {
	if l.PluralCount < 1 || l.PluralFormula == "" {
		return ""
	}
	return "nplurals=" + strconv.Itoa(l.PluralCount) + "; plural=" + strings.TrimSuffix(l.PluralFormula, ";") + ";"
}

// updates returns the header fields an Apply that changes the file
// writes, from what f knows.
func updates(f formats.File) []field {
	var ups []field
	if !f.Revised.IsZero() {
		ups = append(ups, field{key: "PO-Revision-Date", value: f.Revised.Format(revisionLayout)})
	}
	if f.Translator != "" {
		ups = append(ups, field{key: "Last-Translator", value: f.Translator})
	}
	if f.Target.Code != "" {
		ups = append(ups, field{key: "Language", value: f.Target.Code})
	}
	// Tolk writes UTF-8; a header without a charset leaves msgfmt unable
	// to convert messages.
	ups = append(ups, field{key: "Content-Type", value: "text/plain; charset=UTF-8", ifAbsent: true})
	if pf := pluralForms(f.Target); pf != "" {
		ups = append(ups, field{key: "Plural-Forms", value: pf, ifAbsent: true})
	}
	return append(ups, field{key: "X-Generator", value: Generator})
}

// headerLine renders one field as a header string line.
func headerLine(key, value string) string {
	return `"` + escape(key+": "+value+"\n") + `"`
}

// headerPatches returns the patches that set the header fields ups.
// When every field of the header sits on string lines of its own (as
// gettext and the reference write it), only the lines of changed
// fields are rewritten and new fields are added after the last one;
// otherwise the header's msgstr is rewritten one field per line. A file
// without a header gets one at its start.
func (d *doc) headerPatches(ups []field) []patch {
	if d.header < 0 {
		start := 0
		if d.bom {
			start = len(bom)
		}
		var fs []field
		for _, u := range ups {
			fs = append(fs, field{key: u.key, value: u.value})
		}
		return []patch{{start, start, renderHeader(fs, d.eol) + d.eol}}
	}
	h := &d.blocks[d.header]
	fields := headerFields(h.strs[0])
	changed := false
	set := make([]string, len(fields)) // new value per existing field, "" to keep
	var added []field
	for _, u := range ups {
		i := -1
		for j, f := range fields {
			if strings.EqualFold(f.key, u.key) {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			added = append(added, u)
			changed = true
		case u.ifAbsent && (u.key != "Plural-Forms" || parseNplurals(fields[i].value) > 0):
		case fields[i].value != u.value:
			set[i] = u.value
			changed = true
		}
	}
	if !changed {
		return nil
	}
	if spans, ok := fieldPieces(h.pieces); ok && len(spans) == len(fields) {
		var ps []patch
		for i, sp := range spans {
			if set[i] == "" {
				continue
			}
			first, last := h.pieces[sp[0]], h.pieces[sp[1]]
			ps = append(ps, patch{first.start, last.end, headerLine(fields[i].key, set[i])})
		}
		// New fields go where gettext's order puts them: after the last
		// field that comes before them in headerOrder.
		for _, a := range added {
			at := h.pieces[0].end
			for i, sp := range spans {
				if orderOf(fields[i].key) < orderOf(a.key) {
					at = h.pieces[sp[1]].end
				}
			}
			ps = append(ps, patch{at, at, d.eol + headerLine(a.key, a.value)})
		}
		return ps
	}
	for i := range fields {
		if set[i] != "" {
			fields[i].value = set[i]
		}
	}
	for _, a := range added {
		at := 0
		for i, f := range fields {
			if orderOf(f.key) < orderOf(a.key) {
				at = i + 1
			}
		}
		fields = slices.Insert(fields, at, a)
	}
	var b strings.Builder
	b.WriteString(`msgstr ""`)
	for _, f := range fields {
		b.WriteString(d.eol + headerLine(f.key, f.value))
	}
	return []patch{{h.strStart, h.strEnd, b.String()}}
}

// fieldPieces maps each header field to the first and last of the
// msgstr's string lines it spans, when the value starts with an empty
// msgstr "" and every line ends a field only at its end.
func fieldPieces(ps []piece) ([][2]int, bool) {
	if len(ps) < 2 || ps[0].val != "" {
		return nil, false
	}
	var spans [][2]int
	first := 1
	for i := 1; i < len(ps); i++ {
		v := ps[i].val
		if j := strings.IndexByte(v, '\n'); j >= 0 && j != len(v)-1 {
			return nil, false
		}
		if strings.HasSuffix(v, "\n") {
			if strings.TrimSpace(joinVals(ps[first:i+1])) != "" {
				spans = append(spans, [2]int{first, i})
			}
			first = i + 1
		}
	}
	if first != len(ps) {
		return nil, false // the last field lacks its "\n"
	}
	return spans, true
}

func joinVals(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.val)
	}
	return b.String()
}

// renderHeader writes a header entry with the given fields.
func renderHeader(fs []field, eol string) string {
	var b strings.Builder
	b.WriteString(`msgid ""` + eol + `msgstr ""`)
	for _, f := range fs {
		b.WriteString(eol + headerLine(f.key, f.value))
	}
	return b.String() + eol
}

// newFile is the file Apply starts from when it has no data: a header
// for f.Target, as msginit and the reference write one.
func newFile(f formats.File) string {
	fs := []field{
		{key: "Project-Id-Version", value: "PACKAGE VERSION"},
	}
	if !f.Revised.IsZero() {
		fs = append(fs, field{key: "PO-Revision-Date", value: f.Revised.Format(revisionLayout)})
	}
	if f.Translator != "" {
		fs = append(fs, field{key: "Last-Translator", value: f.Translator})
	}
	fs = append(fs,
		field{key: "Language", value: f.Target.Code},
		field{key: "MIME-Version", value: "1.0"},
		field{key: "Content-Type", value: "text/plain; charset=UTF-8"},
		field{key: "Content-Transfer-Encoding", value: "8bit"},
	)
	pf := pluralForms(f.Target)
	if pf == "" {
		pf = "nplurals=2; plural=n != 1;"
	}
	fs = append(fs, field{key: "Plural-Forms", value: pf}, field{key: "X-Generator", value: Generator})
	return renderHeader(fs, "\n")
}
