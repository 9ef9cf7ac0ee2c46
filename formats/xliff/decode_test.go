package xliff

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

const doc12 = `<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="app.txt" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="1" resname="hello" approved="yes">
        <source>Hello</source>
        <target state="final">Hallo</target>
        <note>greeting</note>
        <note>second</note>
      </trans-unit>
      <group id="g">
        <trans-unit id="2" maxwidth="10" size-unit="char" weblate-flags="priority:200, &quot;regex:a,b&quot;">
          <source xml:space="preserve">  Drag &amp; <x id="1"/>drop &gt; <g id="2" ctype="x-b">now</g></source>
          <target state="needs-translation">Ziehen<!-- c --> &amp; <x id="1"/>ablegen</target>
          <context-group purpose="location"><context context-type="sourcefile">a.c</context><context context-type="linenumber">7</context></context-group>
          <alt-trans><target>ignored</target></alt-trans>
        </trans-unit>
      </group>
      <trans-unit id="3" translate="no" maxwidth="80">
        <source>Logo</source>
      </trans-unit>
      <trans-unit id="4"><source>Empty state</source><target state="needs-review-translation">Leer</target></trans-unit>
      <trans-unit id="5"><source>Fresh</source><target state="new"/></trans-unit>
    </body>
  </file>
  <file original="" source-language="en" datatype="plaintext"><body>
    <trans-unit id="x" font="Ubuntu Mono;12;bold"><source>Other file</source></trans-unit>
  </body></file>
</xliff>
`

const doc20 = `<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="fr">
  <file id="f">
    <unit id="a">
      <notes>
        <note category="description">desc</note>
        <note category="location">src/app.ts:12</note>
        <note category="meaning">mean</note>
      </notes>
      <segment state="initial">
        <source> Padded <ph id="0" equiv="TAG_IMG" disp="&lt;img&gt;"/> </source>
        <target> Rembourré <ph id="0" equiv="TAG_IMG" disp="&lt;img&gt;"/> </target>
      </segment>
    </unit>
    <unit id="b" translate="no">
      <segment id="s1" state="final"><source>One.</source><target>Un.</target></segment>
      <segment state="reviewed"><source>Two.</source><target>Deux.</target></segment>
      <ignorable><source> </source></ignorable>
      <segment><source>Three.</source></segment>
    </unit>
    <group id="g"><unit id="c"><segment state="translated"><source>In group</source><target>Groupe</target></segment></unit></group>
  </file>
</xliff>
`

func TestDecode12(t *testing.T) {
	units := mustDecode(t, XLIFF, []byte(doc12), de())
	want := []formats.Unit{
		{Context: "hello", Source: []string{"Hello"}, Target: []string{"Hallo"}, Note: "greeting\nsecond",
			Flags: []string{"xml-text"}, Line: 5, Approved: true},
		{Context: "app.txt///2",
			Source:   []string{`  Drag &amp; <x id="1"/>drop &gt; <g id="2" ctype="x-b">now</g>`},
			Target:   []string{`Ziehen &amp; <x id="1"/>ablegen`},
			Flags:    []string{"xml-text", "max-length:10", "priority:200", `"regex:a,b"`},
			Location: "a.c:7", Line: 12, Fuzzy: true},
		{Context: "app.txt///3", Source: []string{"Logo"}, Target: []string{""},
			Flags: []string{"xml-text", "max-size:80", "read-only"}, Line: 19},
		{Context: "app.txt///4", Source: []string{"Empty state"}, Target: []string{"Leer"}, Flags: []string{"xml-text"}, Line: 22},
		{Context: "app.txt///5", Source: []string{"Fresh"}, Target: []string{""}, Flags: []string{"xml-text"}, Line: 23},
		{Context: "x", Source: []string{"Other file"}, Target: []string{""},
			Flags: []string{"xml-text", "font-family:Ubuntu_Mono", "font-size:12", "font-weight:bold"}, Line: 27},
	}
	if len(units) != len(want) {
		t.Fatalf("%d units, want %d: %+v", len(units), len(want), units)
	}
	for i := range want {
		if !reflect.DeepEqual(units[i], want[i]) {
			t.Errorf("unit %d:\n got %+v\nwant %+v", i, units[i], want[i])
		}
	}
}

func TestDecode20(t *testing.T) {
	units := mustDecode(t, XLIFF2, []byte(doc20), de())
	want := []formats.Unit{
		{Context: "a", Source: []string{` Padded <ph id="0" equiv="TAG_IMG" disp="&lt;img&gt;"/> `},
			Target: []string{` Rembourré <ph id="0" equiv="TAG_IMG" disp="&lt;img&gt;"/> `},
			Note:   "desc\nmean", Location: "src/app.ts:12", Flags: []string{"xml-text"}, Line: 3, Fuzzy: true},
		{Context: "b::s1", Source: []string{"One."}, Target: []string{"Un."}, Flags: []string{"xml-text", "read-only"}, Line: 14, Approved: true},
		{Context: "b::segment-2", Source: []string{"Two."}, Target: []string{"Deux."}, Flags: []string{"xml-text", "read-only"}, Line: 14, Approved: true},
		{Context: "b::segment-3", Source: []string{"Three."}, Target: []string{""}, Flags: []string{"xml-text", "read-only"}, Line: 14},
		{Context: "c", Source: []string{"In group"}, Target: []string{"Groupe"}, Flags: []string{"xml-text"}, Line: 20},
	}
	if !reflect.DeepEqual(units, want) {
		t.Errorf("got\n%+v\nwant\n%+v", units, want)
	}
	// A template without targets reads its sources as targets.
	f := de()
	f.Template = true
	units = mustDecode(t, XLIFF2, []byte(doc20), f)
	if units[3].Target[0] != "Three." {
		t.Errorf("template unit without target reads %q, want its source", units[3].Target[0])
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name  string
		codec Codec
		data  string
		line  int
	}{
		{"empty", XLIFF, "", 1},
		{"not xliff", XLIFF, "<?xml version=\"1.0\"?>\n<resources/>", 2},
		{"unclosed", XLIFF, "<xliff version=\"1.2\">\n<file><body>\n<trans-unit id=\"a\"><source>x</source>\n</body></file></xliff>", 4},
		{"unknown entity", XLIFF, "<xliff version=\"1.2\"><file><body><trans-unit id=\"a\"><source>&nbsp;</source></trans-unit></body></file></xliff>", 1},
		{"2.0 as 1.2", XLIFF, doc20, 1},
		{"1.2 as 2.0", XLIFF2, doc12, 2},
		{"latin1", XLIFF, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><xliff/>", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.codec.Decode([]byte(tc.data), de())
			var pe *formats.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v, want *formats.ParseError", err, err)
			}
			if pe.Line != tc.line || pe.Column < 1 {
				t.Errorf("error at %d:%d (%v), want line %d", pe.Line, pe.Column, err, tc.line)
			}
			if _, err := tc.codec.Apply([]byte(tc.data), de(), nil); err == nil && tc.data != "" {
				t.Errorf("Apply accepted what Decode rejects")
			}
		})
	}
}
