package xliff

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

const plainDoc = `<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="1" resname="greeting">
        <source>Hello <g id="b">big</g> &amp; world</source>
        <target>Hallo <g id="b">große</g> &amp; Welt</target>
      </trans-unit>
      <trans-unit id="2" resname="bye">
        <source>Bye</source>
        <target>Tschüss</target>
      </trans-unit>
    </body>
  </file>
</xliff>
`

// TestPlainXLIFF checks plainxliff: strings are the text content (inline
// elements reduced to their text, entities decoded, no xml-text flag),
// an edit is written escaped, and an untouched target keeps its markup.
func TestPlainXLIFF(t *testing.T) {
	data := []byte(plainDoc)
	units := byContext(t, mustDecode(t, PlainXLIFF, data, de()))
	g := units["greeting"]
	if g.Source[0] != "Hello big & world" || g.Target[0] != "Hallo große & Welt" || slices.Contains(g.Flags, FlagXMLText) {
		t.Errorf("greeting reads %q → %q, flags %q", g.Source, g.Target, g.Flags)
	}
	if rich := byContext(t, mustDecode(t, XLIFF, data, de()))["greeting"]; rich.Target[0] != `Hallo <g id="b">große</g> &amp; Welt` {
		t.Errorf("the xliff codec reads %q", rich.Target)
	}
	// Writing back what Decode read changes nothing.
	if out := mustApply(t, PlainXLIFF, data, de(), editOf("greeting", g.Target[0]), editOf("bye", "Tschüss")); string(out) != plainDoc {
		t.Errorf("a no-op edit changed the file:\n%s", out)
	}
	out := mustApply(t, PlainXLIFF, data, de(), editOf("bye", `a <b> & "c"`))
	if !strings.Contains(string(out), `<target>a &lt;b&gt; &amp; "c"</target>`) ||
		!strings.Contains(string(out), `<target>Hallo <g id="b">große</g> &amp; Welt</target>`) {
		t.Errorf("edit written as:\n%s", out)
	}
	if got := byContext(t, mustDecode(t, PlainXLIFF, out, de()))["bye"].Target[0]; got != `a <b> & "c"` {
		t.Errorf("the edit reads back %q", got)
	}
	for _, p := range corpusFiles(t, "kimai") {
		data := mustRead(t, p)
		if out := mustApply(t, PlainXLIFF, data, de()); string(out) != string(data) {
			t.Errorf("%s: Apply with no edits changed the file", p)
		}
	}
}

// poxliffOf converts a corpus PO file with Translate Toolkit's po2xliff,
// the writer of the files poxliff reads.
func poxliffOf(t *testing.T, po string) []byte {
	t.Helper()
	po2xliff := lookTool(t, "po2xliff")
	out := filepath.Join(t.TempDir(), "out.xlf")
	if b, err := exec.Command(po2xliff, po, out).CombinedOutput(); err != nil {
		t.Fatalf("po2xliff: %v\n%s", err, b)
	}
	return mustRead(t, out)
}

// TestPOXLIFF reads kooha's German PO as po2xliff writes it: one unit per
// msgid (the header is none), a plural group as one unit of two forms;
// an edit of both forms changes those two targets only, and xliff2po
// reads them back as msgstr[0] and msgstr[1].
func TestPOXLIFF(t *testing.T) {
	data := poxliffOf(t, corpusDir+"/kooha/po/de.po")
	f := de()
	f.Target.Plurals = []string{"one", "other"}
	units := mustDecode(t, POXLIFF, data, f)
	var plurals []formats.Unit
	for _, u := range units {
		if strings.HasPrefix(u.Source[0], "Project-Id-Version") {
			t.Errorf("the header is a unit: %q", u.Context)
		}
		if len(u.Source) > 1 {
			plurals = append(plurals, u)
		}
	}
	// SOURCE.md: 3 plural msgids; po2xliff writes the obsolete ones too.
	// A unit per trans-unit but the header and each group's second.
	want := strings.Count(string(data), "<trans-unit ") - 1 - 3
	if len(units) != want || len(plurals) != 3 {
		t.Fatalf("%d units, %d plural; want %d, 3", len(units), len(plurals), want)
	}
	p := plurals[0]
	if len(p.Target) != 2 || p.Source[1] == p.Source[0] || p.Target[0] == "" || p.Location == "" {
		t.Errorf("plural unit %+v", p)
	}
	if out := mustApply(t, POXLIFF, data, f); string(out) != string(data) {
		t.Error("Apply with no edits changed the file")
	}
	out := mustApply(t, POXLIFF, data, f, formats.Edit{Context: p.Context, Source: p.Source,
		Target: []string{"eine & Stunde", "viele <Stunden>"}, Plural: true})
	back := byContext(t, mustDecode(t, POXLIFF, out, f))
	if got := back[p.Context].Target; !slices.Equal(got, []string{"eine &amp; Stunde", "viele &lt;Stunden&gt;"}) {
		t.Errorf("plural edit reads back %q", got)
	}
	for _, u := range units {
		if u.Context != p.Context && !slices.Equal(back[u.Context].Target, u.Target) {
			t.Errorf("%q changed: %q → %q", u.Context, u.Target, back[u.Context].Target)
		}
	}
	if _, err := POXLIFF.Apply(data, f, []formats.Edit{{Context: p.Context, Target: []string{"a", "b", "c"}}}); err == nil {
		t.Error("a third form for a group of two trans-units was accepted")
	}
	xliff2po := lookTool(t, "xliff2po")
	in := filepath.Join(t.TempDir(), "in.xlf")
	if err := os.WriteFile(in, out, 0o644); err != nil {
		t.Fatal(err)
	}
	po, err := exec.Command(xliff2po, "--progress=none", in).Output()
	if err != nil {
		t.Fatalf("xliff2po: %v", err)
	}
	if !strings.Contains(string(po), `msgstr[0] "eine & Stunde"`) || !strings.Contains(string(po), `msgstr[1] "viele <Stunden>"`) {
		t.Errorf("xliff2po reads:\n%s", po)
	}
	removed := mustRemove(t, POXLIFF, data, formats.Key{Context: p.Context})
	if n := len(mustDecode(t, POXLIFF, removed, f)); n != want-1 || strings.Count(string(removed), "x-gettext-plurals") != 2 {
		t.Errorf("after removing the plural unit: %d units, %d groups", n, strings.Count(string(removed), "x-gettext-plurals"))
	}
}
