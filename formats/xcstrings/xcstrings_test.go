package xcstrings

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// corpusFile is the IceCubes catalog seen from this package's directory.
var corpusFile = filepath.Join("..", "..", "..", "shared", "corpus", "icecubesapp",
	"IceCubesApp", "Resources", "Localization", "Localizable.xcstrings")

// allCats reads every plural category a catalog may hold, so that counts
// do not depend on a plural table.
var allCats = []string{"zero", "one", "two", "few", "many", "other"}

// corpusLangs are the catalog's languages (SOURCE.md).
var corpusLangs = []string{"be", "ca", "de", "en", "en-GB", "es", "eu", "fr", "it", "ja", "ko", "nb", "nl", "pl", "pt-BR", "tr", "uk", "zh-Hans", "zh-Hant"}

func mustCorpus(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile(corpusFile)
	if err != nil {
		tb.Skipf("corpus %s not found (%v); it lives in shared/corpus beside the checkout", corpusFile, err)
	}
	return data
}

// file returns the File of lang (a tag as the catalog writes it) in the
// corpus, whose source language is English.
func file(lang string, cats []string) formats.File {
	return formats.File{
		Source: formats.Language{Code: "en", Plurals: []string{"one", "other"}},
		Target: formats.Language{Code: strings.ReplaceAll(lang, "-", "_"), Plurals: cats},
	}
}

func mustDecode(tb testing.TB, data []byte, f formats.File) []formats.Unit {
	tb.Helper()
	units, err := Codec{}.Decode(data, f)
	if err != nil {
		tb.Fatalf("Decode %s: %v", f.Target.Code, err)
	}
	return units
}

func mustApply(tb testing.TB, data []byte, f formats.File, edits ...formats.Edit) []byte {
	tb.Helper()
	out, err := Codec{}.Apply(data, f, edits)
	if err != nil {
		tb.Fatalf("Apply %s %v: %v", f.Target.Code, edits, err)
	}
	return out
}

// xcodeStyle checks that data is exactly what Xcode's serializer writes
// for its own content, with Python's json as the reference writer
// (SOURCE.md: it reproduces the corpus byte for byte).
func xcodeStyle(t *testing.T, data []byte) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is required in CI")
		}
		t.Skip("python3 not found")
	}
	cmd := exec.Command(py, "-c", `import json,sys
d=json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.stdout.buffer.write(json.dumps(d, ensure_ascii=False, indent=2, separators=(",", " : ")).encode("utf-8"))`)
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 rejects the output: %v\n%s", err, stderr.Bytes())
	}
	if !bytes.Equal(out, data) {
		i := 0
		for i < len(out) && i < len(data) && out[i] == data[i] {
			i++
		}
		t.Fatalf("output is not in Xcode's style; first difference at byte %d:\nours:   %q\nxcode:  %q", i, snippet(data, i), snippet(out, i))
	}
}

func snippet(b []byte, i int) []byte {
	lo, hi := max(0, i-80), min(len(b), i+80)
	return b[lo:hi]
}

func TestCorpusIsXcodeStyle(t *testing.T) {
	xcodeStyle(t, mustCorpus(t))
}

func TestLanguages(t *testing.T) {
	data := mustCorpus(t)
	src, langs, err := Languages(data)
	if err != nil {
		t.Fatal(err)
	}
	if src != "en" || !reflect.DeepEqual(langs, corpusLangs) {
		t.Fatalf("Languages = %q, %q; want en, %q", src, langs, corpusLangs)
	}
}

// TestCorpusCounts checks the figures of SOURCE.md (entries with a
// localization: 626 for ca and nb, 732 for es and it, 642 for en; 12,519
// stringUnits directly under a language) and the units Decode makes: one
// per key (733), one per device instead of the key's, and one more per
// substitution argument.
func TestCorpusCounts(t *testing.T) {
	data := mustCorpus(t)
	c, err := load(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.strings.members) != 733 {
		t.Fatalf("%d keys, want 733", len(c.strings.members))
	}
	want := map[string][2]int{ // entries with a localization, units
		"be": {627, 743}, "ca": {626, 743}, "de": {715, 747}, "en": {642, 743}, "en-GB": {642, 743},
		"es": {732, 743}, "eu": {683, 747}, "fr": {688, 747}, "it": {732, 743}, "ja": {627, 743},
		"ko": {711, 742}, "nb": {626, 743}, "nl": {673, 747}, "pl": {627, 743}, "pt-BR": {708, 743},
		"tr": {689, 743}, "uk": {627, 743}, "zh-Hans": {689, 743}, "zh-Hant": {687, 743},
	}
	direct, forms, fuzzy := 0, 0, 0
	for _, lang := range corpusLangs {
		entries := 0
		for _, m := range c.strings.members {
			if loc := localization(m.val, lang); loc != nil {
				entries++
				if loc.object("stringUnit") != nil {
					direct++
				}
			}
		}
		units := mustDecode(t, data, file(lang, allCats))
		if got := [2]int{entries, len(units)}; got != want[lang] {
			t.Errorf("%s: %d entries, %d units; want %v", lang, entries, len(units), want[lang])
		}
		for _, u := range units {
			for _, f := range u.Target {
				if f != "" {
					forms++
				}
			}
			if u.Fuzzy {
				fuzzy++
			}
			if u.Source[0] == "" && u.Context != "" {
				t.Errorf("%s %q: empty source", lang, u.Context)
			}
		}
	}
	// 13,330 stringUnits in all (Python's json), 14 of them empty, and
	// the keys of the 90 non-empty keys with no en localization, which
	// are English's values.
	if direct != 12519 || forms != 13316+90 {
		t.Errorf("%d direct stringUnits, %d non-empty forms; want 12519, 13406", direct, forms)
	}
	if fuzzy == 0 {
		t.Error("no fuzzy unit; the corpus has needs_review states")
	}
}

func TestDecodeUnits(t *testing.T) {
	data := mustCorpus(t)
	byCtx := func(lang string, cats []string) map[string]formats.Unit {
		m := map[string]formats.Unit{}
		for _, u := range mustDecode(t, data, file(lang, cats)) {
			m[u.Context] = u
		}
		return m
	}
	fr := byCtx("fr", []string{"one", "many", "other"})
	pl := byCtx("pl", []string{"one", "few", "many", "other"})
	ja := byCtx("ja", []string{"other"})
	en := byCtx("en", []string{"one", "other"})
	for _, tc := range []struct {
		name string
		u    formats.Unit
		ok   func(formats.Unit) bool
	}{
		{"substitution main value", fr["account.label.followers %lld %@"], func(u formats.Unit) bool {
			return u.Target[0] == "%#@followers@" && u.Source[0] == "%#@followers@"
		}},
		{"substitution argument", fr["account.label.followers %lld %@|%#@followers@"], func(u formats.Unit) bool {
			return len(u.Target) == 3 && strings.Contains(u.Target[0], "%2$@") && len(u.Source) == 2
		}},
		{"device variation", fr["settings.display.section.platform|device:ipad"], func(u formats.Unit) bool {
			return u.Target[0] == "iPad" && u.Source[0] == "iPad"
		}},
		{"no en value: the key is the source", ja["%@ was posted on Mastodon"], func(u formats.Unit) bool {
			return u.Source[0] == "%@ was posted on Mastodon"
		}},
		{"no en value: the key is English's value", en["%@ was posted on Mastodon"], func(u formats.Unit) bool {
			return u.Target[0] == "%@ was posted on Mastodon"
		}},
		{"plural in Polish order", pl["account.label.followers %lld %@|%#@followers@"], func(u formats.Unit) bool {
			return len(u.Target) == 4
		}},
	} {
		if tc.u.Context == "" || !tc.ok(tc.u) {
			t.Errorf("%s: unexpected unit %+v", tc.name, tc.u)
		}
	}
	if _, ok := fr["settings.display.section.platform"]; ok {
		t.Error("a string with device variations also gave a unit of its own")
	}
	if u := fr[""]; len(u.Target) != 1 || u.Target[0] != "" {
		t.Errorf("empty key: %+v", u)
	}
}

// TestNoopApply: no edits, and rewriting every translated unit with its
// own value and state, leave every language's bytes as they are.
func TestNoopApply(t *testing.T) {
	data := mustCorpus(t)
	c, err := load(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range corpusLangs {
		f := file(lang, allCats)
		if out := mustApply(t, data, f); !bytes.Equal(out, data) {
			t.Fatalf("%s: Apply without edits changed the file", lang)
		}
		var edits []formats.Edit
		for _, u := range mustDecode(t, data, f) {
			if !empty(u.Target) && !mixedFuzzy(c, lang, u.Context) {
				edits = append(edits, formats.Edit{Context: u.Context, Source: u.Source, Target: u.Target, Fuzzy: u.Fuzzy, Plural: len(u.Target) > 1})
			}
		}
		if out := mustApply(t, data, f, edits...); !bytes.Equal(out, data) {
			i := 0
			for i < len(out) && out[i] == data[i] {
				i++
			}
			t.Fatalf("%s: rewriting %d units with their own values changed the file at byte %d: %q", lang, len(edits), i, snippet(out, i))
		}
	}
}

// mixedFuzzy says a plural unit has translated and needs_review forms at
// once, which one Edit cannot say.
func mixedFuzzy(c *catalog, lang, ctx string) bool {
	t := c.resolve(ctx)
	loc := localization(t.entry, lang)
	n := loc
	if t.device != "" {
		n = device(loc, t.device)
	} else if t.subst != "" {
		n = subst(loc, t.subst)
	}
	states := map[string]bool{}
	for _, m := range n.object("variations").object("plural").list() {
		s, _ := m.val.object("stringUnit").text("state")
		states[s] = true
	}
	return len(states) > 1
}

// TestEditEachLanguage edits one value per language and checks that only
// that value's bytes change and that no other language reads differently.
func TestEditEachLanguage(t *testing.T) {
	data := mustCorpus(t)
	c, err := load(data)
	if err != nil {
		t.Fatal(err)
	}
	const value = "Tolk ✓ \"quoted\" \\ back\nline"
	before := map[string][]formats.Unit{}
	for _, lang := range corpusLangs {
		before[lang] = mustDecode(t, data, file(lang, allCats))
	}
	for _, lang := range corpusLangs {
		t.Run(lang, func(t *testing.T) {
			f := file(lang, allCats)
			var key string
			var span *node
			for _, m := range c.strings.members {
				su := localization(m.val, lang).object("stringUnit")
				if st, _ := su.text("state"); st == "translated" && localization(m.val, lang).get("substitutions") == nil {
					key, span = m.key, su.get("value")
					if v, _ := su.text("value"); v != "" {
						break
					}
				}
			}
			out := mustApply(t, data, f, formats.Edit{Context: key, Target: []string{value}})
			want := string(data[:span.start]) + quote(value) + string(data[span.end:])
			if string(out) != want {
				t.Fatalf("edit of %q changed more than its value", key)
			}
			for _, other := range corpusLangs {
				after := mustDecode(t, out, file(other, allCats))
				for i, u := range after {
					if other == lang && u.Context == key {
						if u.Target[0] != value || u.Fuzzy {
							t.Errorf("%q reads back as %+v", key, u)
						}
						continue
					}
					if lang == "en" && u.Context == key { // the source of every language
						u.Source = before[other][i].Source
					}
					if !reflect.DeepEqual(u, before[other][i]) {
						t.Fatalf("%s %q changed: %+v → %+v", other, u.Context, before[other][i], u)
					}
				}
			}
			// A fuzzy edit writes needs_review and reads back fuzzy.
			out = mustApply(t, data, f, formats.Edit{Context: key, Target: []string{value}, Fuzzy: true})
			for _, u := range mustDecode(t, out, f) {
				if u.Context == key && !u.Fuzzy {
					t.Errorf("fuzzy edit of %q reads back %+v", key, u)
				}
			}
			if !bytes.Contains(out, []byte(`"state" : "needs_review",`+"\n            \"value\" : "+quote(value))) {
				t.Errorf("fuzzy edit did not write needs_review")
			}
		})
	}
}

func TestAddLocalization(t *testing.T) {
	data := mustCorpus(t)
	c, _ := load(data)
	// A plain string and a plural one that Catalan lacks.
	var plain, plural string
	for _, m := range c.strings.members {
		if localization(m.val, "ca") != nil {
			continue
		}
		src := localization(m.val, "en")
		devices, substs := shape(src)
		switch {
		case len(devices) > 0 || len(substs) > 0:
		case src.object("variations").object("plural") != nil && plural == "":
			plural = m.key
		case src.object("stringUnit") != nil && plain == "" && m.key != "":
			plain = m.key
		}
	}
	if plain == "" || plural == "" {
		t.Fatalf("corpus has no plain (%q) or plural (%q) string Catalan lacks", plain, plural)
	}
	f := file("ca", []string{"one", "other"})
	out := mustApply(t, data, f,
		formats.Edit{Context: plain, Target: []string{"Hola"}},
		formats.Edit{Context: plural, Target: []string{"un", "molts"}, Fuzzy: true},
		formats.Edit{Context: "tolk.new.key", Target: []string{"Nova"}},
		formats.Edit{Context: "tolk.untranslated", Target: []string{""}},
	)
	xcodeStyle(t, out)
	got := map[string]formats.Unit{}
	for _, u := range mustDecode(t, out, f) {
		got[u.Context] = u
	}
	if u := got[plain]; u.Target[0] != "Hola" || u.Fuzzy {
		t.Errorf("plain: %+v", u)
	}
	if u := got[plural]; !reflect.DeepEqual(u.Target, []string{"un", "molts"}) || !u.Fuzzy {
		t.Errorf("plural: %+v", u)
	}
	if u := got["tolk.new.key"]; u.Target[0] != "Nova" || u.Source[0] != "tolk.new.key" {
		t.Errorf("new key: %+v", u)
	}
	if _, ok := got["tolk.untranslated"]; ok {
		t.Error("an empty edit of an unknown key added it")
	}
	for _, lang := range corpusLangs {
		if lang == "ca" {
			continue
		}
		a, b := mustDecode(t, data, file(lang, allCats)), mustDecode(t, out, file(lang, allCats))
		if len(b) != len(a)+1 || !reflect.DeepEqual(lineless(a), lineless(b[:len(a)])) {
			t.Errorf("%s reads differently after adding Catalan values", lang)
		}
	}
	// Emptying the value again removes Catalan's localization: the file
	// is back to the corpus plus the new key.
	back := mustApply(t, out, f,
		formats.Edit{Context: plain, Target: []string{""}},
		formats.Edit{Context: plural, Target: []string{"", ""}})
	again := mustApply(t, data, f, formats.Edit{Context: "tolk.new.key", Target: []string{"Nova"}})
	if !bytes.Equal(back, again) {
		t.Error("emptying added values did not restore the file")
	}
}

func TestRemove(t *testing.T) {
	data := mustCorpus(t)
	key := "account.label.followers %lld %@"
	keys := []formats.Key{{Context: key + "|%#@followers@"}, {Context: "no such key"}}
	out, err := Codec{}.Remove(data, file("fr", nil), keys)
	if err != nil {
		t.Fatal(err)
	}
	xcodeStyle(t, out)
	c, _ := load(out)
	if e := c.strings.object(key); e == nil || localization(e, "fr") != nil || localization(e, "de") == nil {
		t.Error("Remove for fr did not take out exactly fr's localization")
	}
	out, err = Codec{}.Remove(data, file("en", nil), keys)
	if err != nil {
		t.Fatal(err)
	}
	xcodeStyle(t, out)
	if c, _ := load(out); c.strings.object(key) != nil || len(c.strings.members) != 732 {
		t.Error("Remove for the source language did not take out the entry")
	}
}

func TestNewCatalog(t *testing.T) {
	f := file("fr", []string{"one", "many", "other"})
	out := mustApply(t, nil, f,
		formats.Edit{Context: "b", Target: []string{"B"}},
		formats.Edit{Context: "a %lld", Target: []string{"un", "", "des"}, Plural: true})
	xcodeStyle(t, out)
	units := mustDecode(t, out, f)
	if len(units) != 2 || units[0].Context != "b" || !reflect.DeepEqual(units[1].Target, []string{"un", "", "des"}) {
		t.Fatalf("units %+v\n%s", units, out)
	}
	if out, err := (Codec{}).Emptied(out, f); err != nil || len(mustDecode(t, out, file("de", nil))) != 2 {
		t.Errorf("Emptied: %v", err)
	}
}

func TestEditErrors(t *testing.T) {
	data := mustCorpus(t)
	f := file("fr", []string{"one", "many", "other"})
	for _, tc := range []struct {
		name string
		e    formats.Edit
	}{
		{"unknown device", formats.Edit{Context: "settings.display.section.platform|device:watch", Target: []string{"x"}}},
		{"plural forms for a plain string", formats.Edit{Context: "account.joined", Target: []string{"a", "b"}}},
		{"device string as a whole", formats.Edit{Context: "settings.display.section.platform", Target: []string{"x"}}},
		{"invalid UTF-8", formats.Edit{Context: "account.joined", Target: []string{"\xff"}}},
	} {
		if _, err := (Codec{}).Apply(data, f, []formats.Edit{tc.e}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		in         string
		line, col  int
		errContain string
	}{
		{``, 1, 1, "end of input"},
		{`[]`, 1, 1, "not an object"},
		{`{"strings" : {}} x`, 1, 18, "after the top-level"},
		{"{\n  \"strings\" : {\n    \"a\" : {\"x\" 1}\n  }\n}", 3, 16, "expected ':'"},
		{`{"strings" : "x"}`, 1, 14, `no "strings"`},
		{`{"sourceLanguage" : "en"}`, 1, 1, `no "strings"`},
		{"{\"strings\" : {\"\xff\" : {}}}", 1, 16, "UTF-8"},
		{`{"strings" : {"a\q" : {}}}`, 1, 18, "invalid escape"},
		{`{"strings" : {"a" : 01}}`, 1, 22, "expected ','"},
		{strings.Repeat(`{"a":`, 70), 1, 326, "nested deeper"},
	} {
		_, err := Codec{}.Decode([]byte(tc.in), file("fr", nil))
		var pe *formats.ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || pe.Column != tc.col || !strings.Contains(err.Error(), tc.errContain) {
			t.Errorf("Decode(%.40q) = %v; want a ParseError at %d:%d containing %q", tc.in, err, tc.line, tc.col, tc.errContain)
		}
	}
}

// lineless drops what an insertion above a unit changes: its Line.
func lineless(units []formats.Unit) []formats.Unit {
	out := make([]formats.Unit, len(units))
	for i, u := range units {
		u.Line = 0
		out[i] = u
	}
	return out
}

const small = `{
  "sourceLanguage" : "en",
  "strings" : {
    "a" : {
      "comment" : "A note",
      "localizations" : {
        "de" : {
          "stringUnit" : {
            "state" : "new",
            "value" : "A?"
          }
        },
        "fr" : {
          "stringUnit" : {
            "state" : "stale",
            "value" : "A"
          }
        }
      }
    },
    "b" : {
      "shouldTranslate" : false
    },
    "c" : {
      "extractionState" : "manual",
      "localizations" : {
        "fr" : {
          "stringUnit" : {
            "state" : "needs_review",
            "value" : "C"
          }
        }
      }
    }
  },
  "version" : "1.0"
}`

func TestStates(t *testing.T) {
	units := mustDecode(t, []byte(small), file("fr", nil))
	de := mustDecode(t, []byte(small), file("de", nil))
	for _, tc := range []struct {
		name string
		got  formats.Unit
		want formats.Unit
	}{
		{"stale is translated, comment is the note", units[0], formats.Unit{Context: "a", Source: []string{"a"}, Target: []string{"A"}, Note: "A note", Line: 13}},
		{"shouldTranslate false is read-only", units[1], formats.Unit{Context: "b", Source: []string{"b"}, Target: []string{""}, Flags: []string{"read-only"}, Line: 21}},
		{"needs_review is fuzzy, manual is editable", units[2], formats.Unit{Context: "c", Source: []string{"c"}, Target: []string{"C"}, Fuzzy: true, Line: 27}},
		{"new with a value is fuzzy", de[0], formats.Unit{Context: "a", Source: []string{"a"}, Target: []string{"A?"}, Note: "A note", Fuzzy: true, Line: 7}},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, tc.got, tc.want)
		}
	}
	// An unchanged stale value keeps its state; a changed one is translated.
	f := file("fr", nil)
	if out := mustApply(t, []byte(small), f, formats.Edit{Context: "a", Target: []string{"A"}}); string(out) != small {
		t.Error("rewriting a stale value with itself changed the file")
	}
	out := mustApply(t, []byte(small), f, formats.Edit{Context: "a", Target: []string{"B"}}, formats.Edit{Context: "c", Target: []string{"C"}})
	want := strings.Replace(strings.Replace(small, `"stale",
            "value" : "A"`, `"translated",
            "value" : "B"`, 1), `"needs_review"`, `"translated"`, 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestRemoveMembers(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		lang string
		want []string // keys left
	}{
		{[]string{"a", "b"}, "en", []string{"c"}},
		{[]string{"a", "c"}, "en", []string{"b"}},
		{[]string{"b", "c"}, "en", []string{"a"}},
		{[]string{"a", "b", "c"}, "en", nil},
		{[]string{"a"}, "fr", []string{"a", "b", "c"}},
	} {
		var keys []formats.Key
		for _, k := range tc.keys {
			keys = append(keys, formats.Key{Context: k})
		}
		out, err := Codec{}.Remove([]byte(small), file(tc.lang, nil), keys)
		if err != nil {
			t.Fatal(err)
		}
		xcodeStyle(t, out)
		c, err := load(out)
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, m := range c.strings.members {
			left = append(left, m.key)
		}
		if !reflect.DeepEqual(left, tc.want) {
			t.Errorf("Remove %v in %s left %v; want %v", tc.keys, tc.lang, left, tc.want)
		}
		if tc.lang == "fr" && (localization(c.strings.object("a"), "fr") != nil || localization(c.strings.object("a"), "de") == nil) {
			t.Errorf("Remove in fr:\n%s", out)
		}
	}
}

// TestEditVariations writes a substitution argument, a device variation
// and Polish plural categories a string lacks, and checks the result reads
// back, is in Xcode's style and leaves the other languages as they were.
func TestEditVariations(t *testing.T) {
	data := mustCorpus(t)
	plCats := []string{"one", "few", "many", "other"}
	f := file("pl", plCats)
	// A Polish plural with only one and other.
	c, _ := load(data)
	var twoForms string
	for _, m := range c.strings.members {
		pl := localization(m.val, "pl").object("variations").object("plural")
		if pl != nil && len(pl.members) == 2 && pl.object("one") != nil && pl.object("other") != nil {
			twoForms = m.key
			break
		}
	}
	if twoForms == "" {
		t.Fatal("no Polish plural with one and other only")
	}
	subCtx := "account.label.followers %lld %@|%#@followers@"
	devCtx := "settings.display.section.platform|device:mac"
	out := mustApply(t, data, f,
		formats.Edit{Context: subCtx, Target: []string{"%2$@ obserwujący", "%2$@ obserwujących", "%2$@ obserwujących", "%2$@ obserwujących"}, Plural: true},
		formats.Edit{Context: devCtx, Target: []string{"Mac (pl)"}},
		formats.Edit{Context: twoForms, Target: []string{"1", "2-4", "5+", "x"}, Fuzzy: true},
	)
	xcodeStyle(t, out)
	got := map[string]formats.Unit{}
	for _, u := range mustDecode(t, out, f) {
		got[u.Context] = u
	}
	if u := got[subCtx]; u.Target[1] != "%2$@ obserwujących" || u.Fuzzy {
		t.Errorf("substitution: %+v", u)
	}
	if u := got[devCtx]; u.Target[0] != "Mac (pl)" {
		t.Errorf("device: %+v", u)
	}
	if u := got[twoForms]; !reflect.DeepEqual(u.Target, []string{"1", "2-4", "5+", "x"}) || !u.Fuzzy {
		t.Errorf("plural: %+v", u)
	}
	c, _ = load(out)
	var order []string
	for _, m := range localization(c.strings.object(twoForms), "pl").object("variations").object("plural").list() {
		order = append(order, m.key)
	}
	if !reflect.DeepEqual(order, []string{"few", "many", "one", "other"}) {
		t.Errorf("plural categories in order %v; Xcode sorts them", order)
	}
	for _, lang := range []string{"en", "de", "uk"} {
		a, b := mustDecode(t, data, file(lang, allCats)), mustDecode(t, out, file(lang, allCats))
		if !reflect.DeepEqual(lineless(a), lineless(b)) {
			t.Errorf("%s reads differently after Polish edits", lang)
		}
	}
}

// TestDecodeLanguages checks that one parse for every language gives
// what Decode gives for each, in the order asked (the source among
// them), and that a catalog that does not parse is Decode's ParseError.
func TestDecodeLanguages(t *testing.T) {
	data := mustCorpus(t)
	var fs []formats.File
	for i := len(corpusLangs) - 1; i >= 0; i-- { // not the catalog's order
		fs = append(fs, file(corpusLangs[i], allCats))
	}
	fs = append(fs, file("sv", []string{"one", "other"})) // a language the catalog lacks
	got, err := Codec{}.DecodeLanguages(data, fs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(fs) {
		t.Fatalf("%d results for %d languages", len(got), len(fs))
	}
	for i, f := range fs {
		if want := mustDecode(t, data, f); !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s: DecodeLanguages differs from Decode (%d and %d units)", f.Target.Code, len(got[i]), len(want))
		}
	}
	if got[len(fs)-1][0].Target[0] != "" {
		t.Errorf("sv, which the catalog lacks, has a value: %q", got[len(fs)-1][0].Target)
	}
	_, err = Codec{}.DecodeLanguages([]byte(`{"strings" : "x"}`), fs)
	var pe *formats.ParseError
	if !errors.As(err, &pe) || pe.Column != 14 {
		t.Errorf("a catalog without strings: %v; want a ParseError at 1:14", err)
	}
}
