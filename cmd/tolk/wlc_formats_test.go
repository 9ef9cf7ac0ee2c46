package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wlcFormatCase is one component of TestWLCFormats: its files upstream,
// and a German file wlc uploads, whose one new value the download must
// hold in place of (or beside) exactly one line of the committed file.
type wlcFormatCase struct {
	slug, format, mask, template string
	files                        map[string]string // path → content, the German file at de
	de                           string            // the German file's path
	upload                       string
	want                         string // what the download holds of the upload
	// added is how many lines the value may take where the committed
	// file had at most one: 2 when 0 (an XLIFF <target> after <source>).
	added int
}

// TestWLCFormats uploads a German file through the reference's client
// (`wlc upload`) into a component of each file format beyond JSON and
// PO/Android (XLIFF 1.2, Apple strings, Ruby YAML, ARB, Java properties
// in ISO 8859-1, the String Catalog), then downloads it (`wlc download`):
// the download holds the uploaded value and is the committed file but
// for that one value's lines.
func TestWLCFormats(t *testing.T) {
	needWLC(t)
	cases := []wlcFormatCase{
		{slug: "xliff", format: "xliff", mask: "l10n/messages.*.xlf", de: "l10n/messages.de.xlf",
			files: map[string]string{"l10n/messages.de.xlf": `<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="hello" resname="hello">
        <source>Hello</source>
      </trans-unit>
      <trans-unit id="bye" resname="bye">
        <source>Bye</source>
        <target>Tschüss</target>
      </trans-unit>
    </body>
  </file>
</xliff>
`},
			upload: `<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="hello" resname="hello">
        <source>Hello</source>
        <target>Hallo &amp; "Welt"</target>
      </trans-unit>
    </body>
  </file>
</xliff>
`, want: `<target state="translated">Hallo &amp; "Welt"</target>`},
		{slug: "strings", format: "strings-utf8", mask: "*.lproj/Localizable.strings", template: "en.lproj/Localizable.strings",
			de: "de.lproj/Localizable.strings", files: map[string]string{
				"en.lproj/Localizable.strings": "/* Greeting */\n\"hello\" = \"Hello\";\n\"bye\" = \"Bye\";\n",
				"de.lproj/Localizable.strings": "/* Greeting */\n\"hello\" = \"\";\n\"bye\" = \"Tschüss\";\n"},
			upload: "\"hello\" = \"Hallo \\\"Welt\\\"\";\n", want: `"hello" = "Hallo \"Welt\"";`},
		{slug: "yaml", format: "ruby-yaml", mask: "config/locales/*.yml", template: "config/locales/en.yml",
			de: "config/locales/de.yml", files: map[string]string{
				"config/locales/en.yml": "en:\n  hello: Hello\n  bye: Bye\n",
				"config/locales/de.yml": "de:\n  hello: \"\"\n  bye: Tschüss\n"},
			upload: "de:\n  hello: 'Hallo: Welt'\n", want: "Hallo: Welt"},
		{slug: "arb", format: "arb", mask: "lib/l10n/intl_*.arb", template: "lib/l10n/intl_en.arb",
			de: "lib/l10n/intl_de.arb", files: map[string]string{
				"lib/l10n/intl_en.arb": "{\n  \"@@locale\": \"en\",\n  \"hello\": \"Hello {name}\",\n  \"@hello\": {\n    \"description\": \"Greeting\"\n  },\n  \"bye\": \"Bye\"\n}\n",
				"lib/l10n/intl_de.arb": "{\n  \"@@locale\": \"de\",\n  \"hello\": \"\",\n  \"bye\": \"Tschüss\"\n}\n"},
			upload: "{\"@@locale\": \"de\", \"hello\": \"Hallo {name} & \\\"du\\\"\"}\n", want: `"hello": "Hallo {name} & \"du\""`},
		{slug: "properties", format: "properties", mask: "res/messages_*.properties", template: "res/messages.properties",
			de: "res/messages_de.properties", files: map[string]string{
				"res/messages.properties":    "# Greeting\nhello=Hello\nbye=Bye\n",
				"res/messages_de.properties": "# Greeting\nhello=\nbye=Tsch\\u00FCss\n"},
			upload: "hello=Gr\\u00FC\\u00DF dich\n", want: `hello=Gr\u00FC\u00DF dich`},
		{slug: "catalog", format: "xcstrings", mask: "Localizable.xcstrings", de: "Localizable.xcstrings",
			files: map[string]string{"Localizable.xcstrings": xcstringsFixture(`
        "de" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Tschüss"
          }
        },`, "")},
			upload: xcstringsFixture("", `
        "de" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Hallo \"Welt\""
          }
        },`),
			want: `"value" : "Hallo \"Welt\""`, added: 6},
	}

	upstream := filepath.Join(t.TempDir(), "upstream")
	all := map[string]string{}
	var setup strings.Builder
	setup.WriteString("projects:\n  - name: Formats\n    slug: formats\n    components:\n")
	for _, tc := range cases {
		for p, s := range tc.files {
			all[p] = s
		}
		fmt.Fprintf(&setup, "      - name: %s\n        slug: %s\n        repo: file://%s\n        branch: main\n"+
			"        filemask: %q\n        file_format: %s\n        source_language: en\n"+
			// Each component is checked on its own: they share the
			// string "hello", which an upload would otherwise propagate
			// into the others, as the reference's merge uploads do
			// (propagation has its own tests).
			"        allow_translation_propagation: false\n",
			tc.slug, tc.slug, upstream+".git", tc.mask, tc.format)
		if tc.template != "" {
			fmt.Fprintf(&setup, "        template: %s\n", tc.template)
		}
	}
	for p, s := range all {
		if err := os.MkdirAll(filepath.Join(upstream, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(upstream, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, upstream, "init", "-q", "-b", "main")
	gitRun(t, upstream, "add", ".")
	gitRun(t, upstream, "commit", "-q", "-m", "files of every format")
	gitRun(t, filepath.Dir(upstream), "clone", "-q", "--bare", upstream, upstream+".git")
	p := startTolk(t, "--config", writeSetup(t, setup.String()))

	for _, tc := range cases {
		t.Run(tc.slug, func(t *testing.T) {
			path := "formats/" + tc.slug + "/de"
			file := filepath.Join(t.TempDir(), filepath.Base(tc.de))
			if err := os.WriteFile(file, []byte(tc.upload), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, code := wlcRun(t, p, p.token, "upload", path, "-i", file); code != 0 {
				t.Fatalf("wlc upload %s: exit %d\n%q", path, code, out)
			}
			out, code := wlcRun(t, p, p.token, "download", path)
			if code != 0 {
				t.Fatalf("wlc download %s: exit %d\n%s", path, code, out)
			}
			committed := tc.files[tc.de]
			old, now := changedLines(committed, out)
			if tc.added == 0 {
				tc.added = 2
			}
			if !strings.Contains(now, tc.want) || strings.Count(old, "\n") > 1 || strings.Count(now, "\n") > tc.added {
				t.Errorf("download of %s changes\n%s\ninto\n%s\nwant one value, %q; the download:\n%s", path, old, now, tc.want, out)
			}
		})
	}
}

// changedLines returns the lines of a and of b between their common
// first and last lines: what turned a into b.
func changedLines(a, b string) (string, string) {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	j := 0
	for j < len(al)-i && j < len(bl)-i && al[len(al)-1-j] == bl[len(bl)-1-j] {
		j++
	}
	return strings.Join(al[i:len(al)-j], ""), strings.Join(bl[i:len(bl)-j], "")
}

// xcstringsFixture is a String Catalog in Xcode's style with the strings
// "bye" and "hello", each localization list beginning with the given
// German one ("" for none).
func xcstringsFixture(byeDE, helloDE string) string {
	return `{
  "sourceLanguage" : "en",
  "strings" : {
    "bye" : {
      "localizations" : {` + byeDE + `
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Bye"
          }
        }
      }
    },
    "hello" : {
      "localizations" : {` + helloDE + `
        "en" : {
          "stringUnit" : {
            "state" : "translated",
            "value" : "Hello"
          }
        }
      }
    }
  },
  "version" : "1.0"
}`
}
