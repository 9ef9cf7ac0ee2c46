package tbx

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// checkAdded encodes src with edits and compares the output with want;
// then checks that the new entries read back and that encoding the
// output again with the same edits changes nothing.
func checkAdded(t *testing.T, src []byte, source, target string, edits []Edit, want string) {
	t.Helper()
	f := mustDecode(t, src)
	var out bytes.Buffer
	if err := f.EncodeTerms(&out, source, target, edits); err != nil {
		t.Fatalf("EncodeTerms: %v", err)
	}
	if out.String() != want {
		t.Fatalf("output differs from want:\n%s", firstDiff(out.Bytes(), []byte(want)))
	}
	g := mustDecode(t, out.Bytes())
	units := g.Units(source, target)
	if len(units) != len(f.Units(source, target))+len(edits) {
		t.Fatalf("%d units after adding %d to %d", len(units), len(edits), len(f.Units(source, target)))
	}
	for i, ed := range edits {
		u := units[len(units)-len(edits)+i]
		if u.Source[0] != ed.Source || u.Context != ed.Context || u.Target[0] != written(ed.Target) {
			t.Errorf("added unit %d reads back as %+v, want %+v", i, u, ed)
		}
	}
	var again bytes.Buffer
	if err := g.EncodeTerms(&again, source, target, edits); err != nil || !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Errorf("adding again changes the file (err %v):\n%s", err, firstDiff(again.Bytes(), out.Bytes()))
	}
}

// TestAddEntries checks that an edit with Add appends a termEntry in the
// file's layout and leaves every other byte alone.
func TestAddEntries(t *testing.T) {
	de := mustCorpusFile(t, "slicer", "de.tbx")
	entry := func(en, de string) string {
		return "            <termEntry>\n                <langSet xml:lang=\"en\"><tig><term>" + en + "</term></tig></langSet>\n" +
			"                <langSet xml:lang=\"de\"><tig>" + de + "</tig></langSet>\n            </termEntry>\n"
	}
	glyph, plugin := entry("Glyph", "<term/>"), entry("plugin", "<term></term>")
	if !strings.Contains(string(de.data), glyph+plugin) {
		t.Fatal("slicer de.tbx no longer ends with Glyph and plugin")
	}
	// Taking the last two entries out and adding a term gives the
	// Translate Toolkit layout of the entries around it, byte for byte.
	without := strings.Replace(string(de.data), glyph+plugin, "", 1)
	want := strings.Replace(string(de.data), glyph+plugin, entry("Glyph set", "<term/>"), 1)
	t.Run("after the last entry", func(t *testing.T) {
		checkAdded(t, []byte(without), "en", "de", []Edit{{Source: "Glyph set", Add: true}}, want)
	})
	t.Run("translated, with an id, escaped", func(t *testing.T) {
		want := strings.Replace(string(de.data), glyph+plugin, strings.Replace(entry("a &amp; b", "<term>x &lt;y&gt;</term>"),
			"<termEntry>", `<termEntry id="t&amp;1">`, 1), 1)
		checkAdded(t, []byte(without), "en", "de", []Edit{{Source: "a & b", Context: "t&1", Target: []string{"x <y>"}, Add: true}}, want)
	})

	// A new file gets its first entries inside <body>, indented.
	t.Run("new file", func(t *testing.T) {
		var empty bytes.Buffer
		if err := New("en", "cs").Encode(&empty, "en", "cs", nil); err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(empty.String(), "        <body>\n", "        <body>\n"+
			"            <termEntry>\n                <langSet xml:lang=\"en\"><tig><term>apple</term></tig></langSet>\n"+
			"                <langSet xml:lang=\"cs\"><tig><term>jablko</term></tig></langSet>\n            </termEntry>\n"+
			"            <termEntry>\n                <langSet xml:lang=\"en\"><tig><term>pear</term></tig></langSet>\n"+
			"                <langSet xml:lang=\"cs\"><tig><term/></tig></langSet>\n            </termEntry>\n", 1)
		checkAdded(t, empty.Bytes(), "en", "cs", []Edit{
			{Source: "apple", Target: []string{"jablko"}, Add: true},
			{Source: "pear", Add: true},
		}, want)
	})

	// A file on one line stays on one line, with its namespace prefix.
	t.Run("one line", func(t *testing.T) {
		in := `<t:martif xmlns:t="urn:x"><t:text><t:body><t:termEntry><t:langSet xml:lang="en"><t:tig><t:term>a</t:term></t:tig></t:langSet></t:termEntry></t:body></t:text></t:martif>`
		want := strings.Replace(in, "</t:body>", `<t:termEntry><t:langSet xml:lang="en"><t:tig><t:term>b</t:term></t:tig></t:langSet>`+
			`<t:langSet xml:lang="de"><t:tig><t:term>B</t:term></t:tig></t:langSet></t:termEntry></t:body>`, 1)
		checkAdded(t, []byte(in), "en", "de", []Edit{{Source: "b", Target: []string{"B"}, Add: true}}, want)
		empty := `<martif><text><body></body></text></martif>`
		want = `<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>b</term></tig></langSet>` +
			`<langSet xml:lang="de"><tig><term>B</term></tig></langSet></termEntry></body></text></martif>`
		checkAdded(t, []byte(empty), "en", "de", []Edit{{Source: "b", Target: []string{"B"}, Add: true}}, want)
	})

	// An edit that matches an entry edits it, Add or not; a file with
	// nowhere to put an entry says so.
	t.Run("errors", func(t *testing.T) {
		var out bytes.Buffer
		err := mustDecode(t, []byte(`<martif/>`)).EncodeTerms(&out, "en", "de", []Edit{{Source: "x", Add: true}})
		if !errors.Is(err, ErrNoBody) || out.Len() != 0 {
			t.Errorf("no body: %v, wrote %d bytes", err, out.Len())
		}
		err = mustDecode(t, []byte(without)).EncodeTerms(&out, "en", "de", []Edit{{Source: "x"}})
		if !errors.Is(err, ErrUnknownUnit) {
			t.Errorf("without Add: %v, want ErrUnknownUnit", err)
		}
	})
}
