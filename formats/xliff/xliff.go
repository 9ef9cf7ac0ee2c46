package xliff

import (
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
}

// XLIFF is the codec of the reference's "xliff" file format (XLIFF 1.2
// with placeables) and XLIFF2 that of "xliff2" (XLIFF 2.0, placeables
// mode).
var (
	XLIFF  = Codec{version: V12}
	XLIFF2 = Codec{version: V20}
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
			Flags:    unitFlags(e.attrs),
			Line:     e.line,
			Fuzzy:    fuzzy,
			Approved: approved,
		})
	}
	return units, nil
}
