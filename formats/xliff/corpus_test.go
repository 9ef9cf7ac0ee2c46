package xliff

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// TestCorpusCounts checks the unit counts against the corpora's
// SOURCE.md (translate-toolkit 3.8.4 for kimai, xml.etree for pkspot)
// and the state counts the statistics there imply.
func TestCorpusCounts(t *testing.T) {
	t.Run("kimai", func(t *testing.T) {
		total, fuzzy, approved, preserved := 0, 0, 0, 0
		per := map[string]int{}
		for _, p := range corpusFiles(t, "kimai") {
			units := mustDecode(t, XLIFF, mustRead(t, p), de())
			per[filepath.Base(p)] = len(units)
			total += len(units)
			for _, u := range units {
				if u.Fuzzy {
					fuzzy++
				}
				if u.Approved {
					approved++
				}
				if u.Context == "" || u.Source[0] == "" || u.Target[0] == "" {
					t.Errorf("%s line %d: empty context, source or target: %+v", p, u.Line, u)
				}
			}
			preserved += strings.Count(string(mustRead(t, p)), `xml:space="preserve"`)
		}
		want := map[string]int{
			"messages.en.xlf": 532, "validators.en.xlf": 44,
			"messages.de.xlf": 532, "messages.fr.xlf": 532, "messages.sl.xlf": 139,
			"messages.ja.xlf": 227, "messages.fo.xlf": 259, "messages.eo.xlf": 309,
		}
		for name, n := range want {
			if per[name] != n {
				t.Errorf("%s: %d units, want %d", name, per[name], n)
			}
		}
		// SOURCE.md: 11,407 trans-units; 179 needs-translation targets,
		// all non-empty (fuzzy in the reference); 720 approved="yes".
		if total != 11407 || fuzzy != 179 || approved != 720 {
			t.Errorf("%d units, %d fuzzy, %d approved; want 11407, 179, 720", total, fuzzy, approved)
		}
		if preserved != 3022 {
			t.Errorf("%d xml:space=preserve, want 3022", preserved)
		}
	})
	t.Run("pkspot", func(t *testing.T) {
		total, padded := 0, 0
		for _, p := range corpusFiles(t, "pkspot") {
			base := filepath.Base(p) == "messages.xlf"
			f := de()
			f.Template = base
			units := mustDecode(t, XLIFF2, mustRead(t, p), f)
			if len(units) != 1604 {
				t.Errorf("%s: %d units, want 1604", p, len(units))
			}
			total += len(units)
			fuzzy, notes := 0, 0
			for _, u := range units {
				if u.Fuzzy {
					fuzzy++
				}
				if u.Note != "" {
					notes++
				}
				// SOURCE.md counts the text without the inline elements.
				if text := tags.ReplaceAllString(u.Source[0], ""); base && text != strings.Trim(text, " ") {
					padded++
				}
				if base && u.Target[0] != u.Source[0] {
					t.Errorf("base %s: target %q is not the source %q", u.Context, u.Target[0], u.Source[0])
				}
			}
			// SOURCE.md: translations have state="initial" on 1,599
			// segments, all with a target, and "translated" on 5; the
			// base has no states. 136 units have notes.
			wantFuzzy := 1599
			if base {
				wantFuzzy = 0
			}
			if fuzzy != wantFuzzy || notes != 136 {
				t.Errorf("%s: %d fuzzy, %d with notes; want %d, 136", p, fuzzy, notes, wantFuzzy)
			}
		}
		if total != 4812 || padded != 473 {
			t.Errorf("%d units, %d padded sources; want 4812, 473", total, padded)
		}
	})
}

// tags matches an inline element's tag in a unit string, whose
// attribute values have their < and > escaped.
var tags = regexp.MustCompile(`<[^>]*>`)

// TestCorpusNoEdits checks that Apply without edits returns every corpus
// file byte for byte.
func TestCorpusNoEdits(t *testing.T) {
	for _, c := range corpora {
		for _, p := range corpusFiles(t, c.name) {
			data := mustRead(t, p)
			if out := mustApply(t, c.codec, data, de()); string(out) != string(data) {
				t.Errorf("%s: Apply with no edits changed the file", p)
			}
		}
	}
}

// TestCorpusEditOne edits one unit of every corpus file and checks that
// the output differs from the input only inside that unit's target
// content, that the edit reads back, and that every other unit reads as
// before. Re-applying the same edit to the output changes nothing.
func TestCorpusEditOne(t *testing.T) {
	const text = `Tolk <x id="1"/> &amp; “done”`
	for _, c := range corpora {
		for _, p := range corpusFiles(t, c.name) {
			data := mustRead(t, p)
			d, err := c.codec.load(data)
			if err != nil {
				t.Fatal(err)
			}
			// the middle entry that has a target
			var e *entry
			for i := len(d.entries) / 2; i < len(d.entries); i++ {
				if d.entries[i].target != nil {
					e = &d.entries[i]
					break
				}
			}
			if e == nil {
				continue // pkspot's base has no targets; see TestInsertTarget
			}
			before := mustDecode(t, c.codec, data, de())
			var unit formats.Unit
			for _, u := range before {
				if u.Context == e.ctx {
					unit = u
				}
			}
			ed := formats.Edit{Context: e.ctx, Source: unit.Source, Target: []string{text}, Fuzzy: unit.Fuzzy, Approved: unit.Approved}
			out := mustApply(t, c.codec, data, de(), ed)
			pre, suf := commonPrefix(data, out), commonSuffix(data, out)
			if pre < e.target.inner.start || len(data)-suf > e.target.inner.end {
				t.Errorf("%s: change spans [%d,%d), outside the target content [%d,%d)",
					p, pre, len(data)-suf, e.target.inner.start, e.target.inner.end)
			}
			if got := string(out[e.target.inner.start : len(out)-(len(data)-e.target.inner.end)]); got != text {
				t.Errorf("%s: target written as %q", p, got)
			}
			after := mustDecode(t, c.codec, out, de())
			if len(after) != len(before) {
				t.Fatalf("%s: %d units after the edit, %d before", p, len(after), len(before))
			}
			for i := range after {
				want := before[i]
				if want.Context == e.ctx {
					want.Target = []string{text}
				}
				if after[i].Target[0] != want.Target[0] || after[i].Fuzzy != want.Fuzzy || after[i].Approved != want.Approved {
					t.Errorf("%s: unit %s reads %+v, want %+v", p, want.Context, after[i], want)
				}
			}
			if again := mustApply(t, c.codec, out, de(), ed); string(again) != string(out) {
				t.Errorf("%s: applying the edit twice differs from once", p)
			}
		}
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// TestCorpusRemoveOne removes one unit of every corpus file and checks
// that exactly its lines go.
func TestCorpusRemoveOne(t *testing.T) {
	for _, c := range corpora {
		for _, p := range corpusFiles(t, c.name) {
			data := mustRead(t, p)
			d, err := c.codec.load(data)
			if err != nil {
				t.Fatal(err)
			}
			e := d.entries[len(d.entries)/2]
			out, err := c.codec.Remove(data, de(), []formats.Key{{Context: e.ctx, Source: e.srcText}})
			if err != nil {
				t.Fatal(err)
			}
			s, end := wholeLines(data, e.owner.tag.start, e.owner.end)
			if s == e.owner.tag.start {
				t.Fatalf("%s: unit %s does not stand on lines of its own", p, e.ctx)
			}
			if want := string(data[:s]) + string(data[end:]); string(out) != want {
				t.Errorf("%s: removing %s changed more than its lines", p, e.ctx)
			}
			if n := len(mustDecode(t, c.codec, out, de())); n != len(d.entries)-1 {
				t.Errorf("%s: %d units after removing one of %d", p, n, len(d.entries))
			}
		}
	}
}

// TestTemplateNoOp checks that writing a template unit's own value back
// changes nothing, although the unit has no target to hold it.
func TestTemplateNoOp(t *testing.T) {
	corpusFiles(t, "pkspot")
	data := mustRead(t, corpusDir+"/pkspot/src/locale/messages.xlf")
	f := de()
	f.Template = true
	var edits []formats.Edit
	for _, u := range mustDecode(t, XLIFF2, data, f) {
		edits = append(edits, formats.Edit{Context: u.Context, Source: u.Source, Target: u.Target})
	}
	if out := mustApply(t, XLIFF2, data, f, edits...); string(out) != string(data) {
		t.Error("writing the template's own values back changed it")
	}
}

// TestCorpusSameValues writes every unit of every corpus file back with
// the target and state Decode read, which must change nothing.
func TestCorpusSameValues(t *testing.T) {
	for _, c := range corpora {
		for _, p := range corpusFiles(t, c.name) {
			data := mustRead(t, p)
			var edits []formats.Edit
			for _, u := range mustDecode(t, c.codec, data, de()) {
				edits = append(edits, formats.Edit{Context: u.Context, Source: u.Source, Target: u.Target, Fuzzy: u.Fuzzy, Approved: u.Approved})
			}
			if out := mustApply(t, c.codec, data, de(), edits...); string(out) != string(data) {
				i := commonPrefix(data, out)
				t.Errorf("%s: writing the values read back changed the file at byte %d: %q", p, i, out[max(0, i-80):min(len(out), i+80)])
			}
		}
	}
}
