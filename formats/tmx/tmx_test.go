package tmx_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/tmx"
)

func TestRoundTrip(t *testing.T) {
	units := []tmx.Unit{
		{SourceLanguage: "en", TargetLanguage: "de", Source: "The page was not found", Target: "Die Seite wurde nicht gefunden",
			Context: "k0", Origin: "pub/app"},
		{SourceLanguage: "en", TargetLanguage: "fr", Source: `<b>&amp; "quoted"` + "\r\nline", Target: "<b>& « cité »\r\nligne"},
		{SourceLanguage: "en", TargetLanguage: "ja", Source: "Plural\x1e\x1eforms", Target: "日本語"},
	}
	var buf bytes.Buffer
	enc := tmx.NewEncoder(&buf, "en", "Tolk")
	for _, u := range units {
		if err := enc.Encode(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := tmx.Decode(bytes.NewReader(buf.Bytes()), 1<<20)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	// The record separator of plural forms is no XML character.
	units[2].Source = "Plural\uFFFD\uFFFDforms"
	for i := range units {
		if units[i].Origin == "" {
			units[i].Origin = "Tolk"
		}
	}
	if !reflect.DeepEqual(got, units) {
		t.Errorf("round trip:\n got %+v\nwant %+v\n%s", got, units, buf.String())
	}
	// An empty memory is a valid document.
	buf.Reset()
	if err := tmx.NewEncoder(&buf, "", "Tolk").Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := tmx.Decode(&buf, 1<<20); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
}

func TestDecodeOtherTools(t *testing.T) {
	// One source and two targets; srclang on the tu; inline codes left
	// out; TMX 1.1's lang attribute.
	doc := `<?xml version="1.0"?>
<tmx version="1.4"><header srclang="*all*" o-tmf="OmegaT" datatype="plaintext" segtype="sentence" adminlang="en" creationtool="x" creationtoolversion="1"/>
<body>
<tu srclang="en-US"><tuv xml:lang="de-DE"><seg>Hallo <bpt i="1">&lt;b&gt;</bpt>Welt<ept i="1">&lt;/b&gt;</ept></seg></tuv>
<tuv xml:lang="en-US"><seg>Hello <hi>world</hi></seg></tuv><tuv lang="fr"><seg>Bonjour</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>only one side</seg></tuv></tu>
</body></tmx>`
	got, err := tmx.Decode(strings.NewReader(doc), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := []tmx.Unit{
		{SourceLanguage: "en-US", TargetLanguage: "de-DE", Source: "Hello world", Target: "Hallo Welt", Origin: "OmegaT"},
		{SourceLanguage: "en-US", TargetLanguage: "fr", Source: "Hello world", Target: "Bonjour", Origin: "OmegaT"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestDecodeRefuses(t *testing.T) {
	const body = `<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>&lol9;</seg></tuv><tuv xml:lang="de"><seg>x</seg></tuv></tu></body></tmx>`
	for _, tc := range []struct {
		name, doc string
		max       int64
		want      error
	}{
		{"billion laughs", `<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>` + body, 1 << 20, formats.ErrDoctype},
		{"external entity", `<!DOCTYPE tmx [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + body, 1 << 20, formats.ErrDoctype},
		{"plain doctype", `<!DOCTYPE tmx SYSTEM "tmx14.dtd">` + body, 1 << 20, formats.ErrDoctype},
		{"too large", body, 20, tmx.ErrTooLarge},
		{"not tmx", `<xliff/>`, 1 << 20, tmx.ErrNotTMX},
		{"no source tuv", `<tmx><header srclang="en"/><body><tu><tuv xml:lang="de"><seg>a</seg></tuv><tuv xml:lang="fr"><seg>b</seg></tuv></tu></body></tmx>`, 1 << 20, tmx.ErrNotTMX},
		{"no lang", `<tmx><header srclang="*all*"/><body><tu><tuv><seg>a</seg></tuv><tuv xml:lang="fr"><seg>b</seg></tuv></tu></body></tmx>`, 1 << 20, tmx.ErrNotTMX},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tmx.Decode(strings.NewReader(tc.doc), tc.max)
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	// Malformed XML and an undeclared entity are errors too.
	for _, doc := range []string{`<tmx><header`, body} {
		if _, err := tmx.Decode(strings.NewReader(doc), 1<<20); err == nil {
			t.Errorf("no error for %q", doc)
		}
	}
}
