package xliff

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/tolk-project/tolk/formats"
)

// Version is an XLIFF major version.
type Version int

// The XLIFF versions a Codec reads and writes.
const (
	V12 Version = 1 // XLIFF 1.2 (1.1 files read the same way)
	V20 Version = 2 // XLIFF 2.0 (and 2.1, 2.2)
)

// Codec reads and writes XLIFF files of one version. Its zero value is
// not usable; use XLIFF or XLIFF2. A Codec keeps no state and is safe for
// concurrent use.
type Codec struct {
	version Version
	// plain reads and writes strings as text, not XML (plainxliff).
	plain bool
	// po reads gettext plural groups as one plural unit and skips the
	// gettext header unit (poxliff).
	po bool
}

// XLIFF is the codec of the reference's "xliff" file format (XLIFF 1.2
// with placeables) and XLIFF2 that of "xliff2" (XLIFF 2.0, placeables
// mode).
//
// PlainXLIFF is the reference's "plainxliff" (XLIFF 1.2 translation
// file, ttkit.py XliffFormat with XliffUnit): the same files read as
// plain text. A string is the text content of <source> or <target>,
// entities decoded and inline elements reduced to the text inside them
// (Translate Toolkit's getText), without the "xml-text" flag; an edit
// is written as text, with &, < and > escaped, so a target whose inline
// elements an edit replaces loses them, as in the reference. A target
// no edit touches keeps its bytes, inline elements included.
var (
	XLIFF      = Codec{version: V12}
	XLIFF2     = Codec{version: V20}
	PlainXLIFF = Codec{version: V12, plain: true}
	// POXLIFF is the reference's "poxliff" (XLIFF 1.2 with gettext
	// extensions, ttkit.py PoXliffFormat, Translate Toolkit's poxliff):
	// XLIFF 1.2 as po2xliff writes it. A <group
	// restype="x-gettext-plurals"> is one unit whose plural forms are
	// its trans-units in order (Source the first two sources, msgid and
	// msgid_plural; Target one form per trans-unit, padded with "" to
	// the language's forms), keyed by the group's resname or id; the
	// header unit (restype="x-gettext-domain-header") is no string, as
	// the reference skips headers. Strings are XML as in XLIFF. Notes
	// and locations of a plural unit are those at the head of its group
	// (where po2xliff writes them), else its first form's.
	POXLIFF = Codec{version: V12, po: true}
)

var (
	_ formats.Codec     = XLIFF
	_ formats.Templater = XLIFF
)

// Flags a unit can carry besides those of its attributes.
const (
	// FlagXMLText is on every unit: the strings hold XML (inline
	// elements as written, text escaped), as the reference's placeables
	// variants mark them (RichXliffUnit.flags).
	FlagXMLText  = "xml-text"
	FlagReadOnly = "read-only"
)

// load parses data and checks that its version is the codec's.
func (c Codec) load(data []byte) (*doc, error) {
	d, err := parse(data)
	if err != nil {
		return nil, err
	}
	if c.plain {
		d.plain = true
		for i := range d.entries {
			e := &d.entries[i]
			e.srcText, e.tgtText = e.srcPlain, e.tgtPlain
		}
	}
	if d.v2 != (c.version == V20) {
		have, want := "1.2", "2.0"
		if d.v2 {
			have, want = want, have
		}
		pe := parseError(data, d.root.start, fmt.Errorf("xliff: the file is XLIFF %s, the format XLIFF %s", have, want))
		return nil, pe
	}
	return d, nil
}

// Decode returns one unit per trans-unit (1.2) or per segment (2.0), in
// file order, duplicates included. Context is the key (see unitContext
// and segmentContext), Source the <source> content and Target the
// <target> content ("" when absent; the source when f.Template is set
// and the unit has no target, as the reference reads a monolingual base).
// Both are XML strings: inline elements as written, text with &, < and >
// escaped. Note joins the notes; Location the location context groups
// (1.2) or location notes (2.0). Fuzzy and Approved follow the state
// attributes as the reference reads them (see states.go).
func (c Codec) Decode(data []byte, f formats.File) ([]formats.Unit, error) {
	d, err := c.load(data)
	if err != nil {
		return nil, err
	}
	units := make([]formats.Unit, 0, len(d.entries))
	for i := range d.entries {
		e := &d.entries[i]
		if c.po && e.header {
			continue
		}
		if c.po && e.group >= 0 {
			if g := &d.groups[e.group]; g.members[0] == i {
				units = append(units, d.pluralUnit(g, f))
			}
			continue
		}
		target := e.tgtText
		if e.target == nil && f.Template {
			target = e.srcText
		}
		fuzzy, approved := d.status(e, target)
		units = append(units, formats.Unit{
			Context:  e.ctx,
			Source:   []string{e.srcText},
			Target:   []string{target},
			Note:     strings.Join(e.notes, "\n"),
			Location: strings.Join(e.location, ", "),
			Flags:    d.unitFlags(e.attrs),
			Line:     e.line,
			Fuzzy:    fuzzy,
			Approved: approved,
		})
	}
	return units, nil
}

// pluralUnit is the unit of a gettext plural group (POXLIFF).
func (d *doc) pluralUnit(g *pluralGroup, f formats.File) formats.Unit {
	first := &d.entries[g.members[0]]
	notes, location := groupMeta(d.src[g.el.tag.end:first.owner.tag.start])
	if len(notes) == 0 {
		notes = first.notes
	}
	if len(location) == 0 {
		location = first.location
	}
	u := formats.Unit{Context: g.ctx, Note: strings.Join(notes, "\n"),
		Location: strings.Join(location, ", "), Flags: d.unitFlags(first.attrs), Line: first.line}
	n := max(len(f.Target.Plurals), 1)
	approved := true
	for k, m := range g.members {
		e := &d.entries[m]
		if k < 2 {
			u.Source = append(u.Source, e.srcText)
		}
		target := e.tgtText
		if e.target == nil && f.Template {
			target = e.srcText
		}
		fuzzy, ok := d.status(e, target)
		u.Fuzzy = u.Fuzzy || fuzzy
		approved = approved && ok
		if k < n || len(f.Target.Plurals) == 0 {
			u.Target = append(u.Target, target)
		}
	}
	for len(u.Target) < n {
		u.Target = append(u.Target, "")
	}
	u.Approved = approved && !u.Fuzzy
	return u
}

// groupMeta reads the notes and location context groups po2xliff writes
// at the head of a plural group, before its first trans-unit (prelude,
// which the parse has checked is well-formed).
func groupMeta(prelude []byte) (notes, location []string) {
	var head struct {
		Notes  []string `xml:"note"`
		Groups []struct {
			Purpose  string `xml:"purpose,attr"`
			Contexts []struct {
				Type string `xml:"context-type,attr"`
				Text string `xml:",chardata"`
			} `xml:"context"`
		} `xml:"context-group"`
	}
	if xml.Unmarshal(append(append([]byte("<g>"), prelude...), "</g>"...), &head) != nil {
		return nil, nil
	}
	for _, n := range head.Notes {
		if n != "" {
			notes = append(notes, n)
		}
	}
	for _, g := range head.Groups {
		if !strings.Contains(g.Purpose, "location") {
			continue
		}
		file, line := "", ""
		for _, c := range g.Contexts {
			switch c.Type {
			case "sourcefile":
				file = strings.TrimSpace(c.Text)
			case "linenumber":
				line = strings.TrimSpace(c.Text)
			}
		}
		switch {
		case file != "" && line != "":
			location = append(location, file+":"+line)
		case file != "":
			location = append(location, file)
		}
	}
	return notes, location
}

// poEdits turns each edit of a gettext plural group into one edit per
// form, keyed by the form's trans-unit (POXLIFF); other edits pass. A
// form beyond the group's trans-units is an error unless it is empty:
// adding a form's trans-unit is left to po2xliff.
func (d *doc) poEdits(edits []formats.Edit) ([]formats.Edit, error) {
	if len(d.groups) == 0 {
		return edits, nil
	}
	byCtx := make(map[string]*pluralGroup, len(d.groups))
	for i := range d.groups {
		byCtx[d.groups[i].ctx] = &d.groups[i]
	}
	out := make([]formats.Edit, 0, len(edits))
	for _, ed := range edits {
		g, ok := byCtx[ed.Context]
		if !ok {
			out = append(out, ed)
			continue
		}
		for k, form := range ed.Target {
			if k >= len(g.members) && form != "" {
				return nil, fmt.Errorf("xliff: %q has %d plural forms in the file, the edit %d", ed.Context, len(g.members), len(ed.Target))
			}
		}
		for k, m := range g.members {
			e := &d.entries[m]
			form := ""
			if k < len(ed.Target) {
				form = ed.Target[k]
			}
			out = append(out, formats.Edit{Context: e.ctx, Source: []string{e.srcText}, Target: []string{form},
				Fuzzy: ed.Fuzzy, Approved: ed.Approved})
		}
	}
	return out, nil
}
