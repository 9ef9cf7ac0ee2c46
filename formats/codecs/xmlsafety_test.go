package codecs_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/formats/codecs"
)

// xmlDocs are a minimal file of each XML format with %s where a DOCTYPE
// goes and %v where a unit's text goes.
var xmlDocs = map[string]string{
	"aresource": `<?xml version="1.0" encoding="utf-8"?>
%s
<resources>
    <string name="a">%v</string>
</resources>
`,
	"xliff": `<?xml version="1.0" encoding="UTF-8"?>
%s
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="a.txt">
    <body>
      <trans-unit id="a">
        <source>%v</source>
      </trans-unit>
    </body>
  </file>
</xliff>
`,
	"plainxliff": `<?xml version="1.0" encoding="UTF-8"?>
%s
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="plaintext" original="a.txt">
    <body>
      <trans-unit id="a">
        <source>%v</source>
      </trans-unit>
    </body>
  </file>
</xliff>
`,
	"poxliff": `<?xml version="1.0" encoding="UTF-8"?>
%s
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" target-language="de" datatype="po" original="a.po">
    <body>
      <group restype="x-gettext-plurals" id="1">
        <trans-unit id="1[0]">
          <source>%v</source>
        </trans-unit>
      </group>
    </body>
  </file>
</xliff>
`,
	"xliff2": `<?xml version="1.0" encoding="UTF-8"?>
%s
<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="de">
  <file id="f">
    <unit id="a">
      <segment>
        <source>%v</source>
      </segment>
    </unit>
  </file>
</xliff>
`,
	"stringsdict": `<?xml version="1.0" encoding="UTF-8"?>
%s
<plist version="1.0">
<dict>
	<key>a</key>
	<dict>
		<key>NSStringLocalizedFormatKey</key>
		<string>%v</string>
	</dict>
</dict>
</plist>
`,
	"tbx": `<?xml version="1.0" encoding="UTF-8"?>
%s
<martif type="TBX" xml:lang="en">
  <text>
    <body>
      <termEntry>
        <langSet xml:lang="en"><tig><term>%v</term></tig></langSet>
      </termEntry>
    </body>
  </text>
</martif>
`,
}

// billionLaughs declares ten entities, each ten times the one before.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE lolz [\n<!ENTITY lol0 \"lol\">\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "<!ENTITY lol%d \"%s\">\n", i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	b.WriteString("]>")
	return b.String()
}

// TestXMLCodecsRefuseEntities feeds every XML codec a billion-laughs
// document and one with an external entity: Decode, Apply and Emptied
// must each return a *formats.ParseError wrapping formats.ErrDoctype, at
// once. The same documents with a DOCTYPE that only names a DTD (as
// Apple's plist and TBX's martif do) must read, so the refusal is the
// DOCTYPE's doing. TestRegistry keeps this list in step: every codec
// whose rows name an XML content type is here.
func TestXMLCodecsRefuseEntities(t *testing.T) {
	f := formats.File{Source: formats.Language{Code: "en", Plurals: []string{"one", "other"}},
		Target: formats.Language{Code: "de", Plurals: []string{"one", "other"}}}
	hostile := []struct{ name, doctype, text string }{
		{"billion laughs", billionLaughs(), "&lol9;"},
		{"external entity", `<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`, "&xxe;"},
		{"external parameter entity", `<!DOCTYPE r [<!ENTITY % dtd SYSTEM "http://example.invalid/x.dtd"> %dtd;]>`, "x"},
		{"markup declaration", `<!DOCTYPE r [<!ELEMENT r ANY>]>`, "x"},
	}
	for _, ff := range formats.All() {
		if !strings.Contains(ff.ContentType, "xml") && ff.Extension != ".stringsdict" {
			continue
		}
		if _, ok := xmlDocs[ff.Name]; !ok {
			t.Errorf("XML format %s has no document in xmlDocs", ff.Name)
		}
	}
	for name, doc := range xmlDocs {
		codec, ok := codecs.Lookup(name)
		if !ok {
			t.Fatalf("no codec %s", name)
		}
		t.Run(name, func(t *testing.T) {
			plain := fmt.Sprintf(doc, `<!DOCTYPE r PUBLIC "-//Example//DTD R 1.0//EN" "http://example.invalid/r.dtd">`, "Hello")
			if _, err := codec.Decode([]byte(plain), f); err != nil {
				t.Fatalf("the document with a plain DOCTYPE does not read: %v\n%s", err, plain)
			}
			for _, h := range hostile {
				data := []byte(fmt.Sprintf(doc, h.doctype, h.text))
				start := time.Now()
				_, err := codec.Decode(data, f)
				wantRefused(t, h.name+": Decode", err)
				_, err = codec.Apply(data, f, []formats.Edit{{Context: "a", Source: []string{"Hello"}, Target: []string{"x"}}})
				wantRefused(t, h.name+": Apply", err)
				if tm, ok := codec.(formats.Templater); ok {
					_, err = tm.Emptied(data, f)
					wantRefused(t, h.name+": Emptied", err)
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("%s: took %v", h.name, d)
				}
			}
		})
	}
}

func wantRefused(tb testing.TB, what string, err error) {
	tb.Helper()
	var pe *formats.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, formats.ErrDoctype) {
		tb.Errorf("%s: error %v (%T), want a *formats.ParseError wrapping ErrDoctype", what, err, err)
	}
}
