package langdata

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code string
		want string // "" means not found
	}{
		{"pt-br", "pt_BR"},
		{"pt_BR", "pt_BR"},
		{"PT-BR", "pt_BR"},
		{"zh-cn", "zh_Hans"},
		{"zh_CN", "zh_Hans"},
		{"zh-tw", "zh_Hant"},
		{"zh_TW", "zh_Hant"},
		{"zh_Hans", "zh_Hans"},
		{"zh-hans", "zh_Hans"},
		{"zh-hk", "zh_Hant_HK"}, // aliases.csv: zh_hk → zh_Hant_HK
		{"nb_NO", "nb_NO"},      // languages.csv has nb_NO, not nb
		{"nb", "nb_NO"},         // aliases.csv: nb → nb_NO
		{"en-us", "en_US"},      // languages.csv has en_US
		{"en_US", "en_US"},
		{"en", "en"},
		{"es_419", "es_419"},
		{"es-419", "es_419"},
		{"bn_BD", "bn_BD"},
		{"he_IL", "he_IL"},
		{"ur_PK", "ur_PK"},
		{"be-by", "be"}, // default_countries.csv: be_by
		{"lt-lt", "lt"}, // default_countries.csv: lt_lt
		{"sl-si", "sl"}, // default_countries.csv: sl_si
		{"hi-in", "hi"}, // default_countries.csv: hi_in
		{"bg-bg", "bg"}, // default_countries.csv: bg_bg
		{"is-is", "is"}, // default_countries.csv: is_is
		{"es_DO", "es_DO"},
		{"pr", "en@pirate"}, // aliases.csv: pr → en@pirate
		{"jbo", "jbo"},
		{"ar_SA", "ar_SA"},
		{"ang", "ang"},
		{"ota", "ota"},
		{"otk", "otk"},
		{"sgn", "sgn"},
		{"zgh", "zgh"},
		{"braz_por", "pt_BR"},   // aliases.csv
		{"BRAZ_POR", "pt_BR"},   // aliases, case-insensitively
		{"sr@latin", "sr_Latn"}, // aliases.csv
		{"German", "de"},        // by name
		{"sr_SP", ""},           // unknown region: see Generate
		{"xx_YY", ""},
		{"de_XX", ""}, // no fallback to the base language
		{"", ""},
		{"#", ""}, // comment rows of aliases.csv are not aliases
	}
	tab := Default()
	for _, tc := range tests {
		got, ok := tab.Resolve(tc.code)
		if tc.want == "" {
			if ok {
				t.Errorf("Resolve(%q) = %s, want not found", tc.code, got.Code)
			}
			continue
		}
		if !ok || got.Code != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.code, got.Code, ok, tc.want)
		}
	}
}

func TestGet(t *testing.T) {
	t.Parallel()
	tab := Default()
	l, ok := tab.Get("pt_BR")
	if !ok || l.Code != "pt_BR" || l.Name != "Portuguese (Brazil)" {
		t.Errorf("Get(pt_BR) = %+v, %v", l, ok)
	}
	if l.Plural.Number != 2 || l.Plural.Formula != "n > 1" || l.Plural.Type != PluralOneOther || l.Plural.ID <= 0 || l.Plural.Source != 0 {
		t.Errorf("Get(pt_BR).Plural = %+v", l.Plural)
	}
	for _, code := range []string{"pt-br", "pt_br", "nb", "zh_CN", ""} {
		if l, ok := tab.Get(code); ok {
			t.Errorf("Get(%q) = %s, want exact codes only", code, l.Code)
		}
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	tab := Default()
	l, ok := tab.Generate("sr-sp")
	sr, _ := tab.Get("sr")
	if !ok || l.Code != "sr_SP" || l.Name != "Serbian (sr_SP)" || l.Direction != "ltr" {
		t.Fatalf("Generate(sr-sp) = %+v, %v", l, ok)
	}
	if l.Plural.Formula != sr.Plural.Formula || l.Plural.Number != sr.Plural.Number || l.Plural.Type != sr.Plural.Type || l.Plural.ID != 0 {
		t.Errorf("Generate(sr-sp).Plural = %+v, want sr's rule with ID 0", l.Plural)
	}
	if l, ok := tab.Generate("ar_XY"); !ok || l.Direction != "rtl" {
		t.Errorf("Generate(ar_XY) = %+v, %v; want rtl", l, ok)
	}
	for _, code := range []string{"xx_YY", "sr", "sr_", "_SP", ""} {
		if l, ok := tab.Generate(code); ok {
			t.Errorf("Generate(%q) = %+v, want false", code, l)
		}
	}
}

func TestNormalizeCode(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"pt-br":       "pt_BR",
		"ZH-hant":     "zh_Hant",
		"sr-latn-rs":  "sr_Latn_RS",
		"es-419":      "es_419",
		"ca@valencia": "ca@valencia",
		"de":          "de",
	}
	for in, want := range tests {
		if got := NormalizeCode(in); got != want {
			t.Errorf("NormalizeCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDirection(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"ar": "rtl", "ar_SA": "rtl", "he": "rtl", "he_IL": "rtl", "ur_PK": "rtl",
		"fa": "rtl", "ms_Arab": "rtl", "pa_PK": "rtl",
		"en": "ltr", "de": "ltr", "ms": "ltr", "pa": "ltr",
		"ar_Latn": "ltr", // a script suffix does not inherit the base's direction
	}
	tab := Default()
	for code, want := range tests {
		l, ok := tab.Get(code)
		if !ok || l.Direction != want {
			t.Errorf("Get(%q).Direction = %q (found %v), want %q", code, l.Direction, ok, want)
		}
	}
}

func TestAliases(t *testing.T) {
	t.Parallel()
	tab := Default()
	for _, tc := range []struct{ code, alias string }{
		{"pt_BR", "braz_por"},
		{"zh_Hans", "zh_cn"},
		{"nb_NO", "nb"},
	} {
		l, _ := tab.Get(tc.code)
		if !slices.Contains(l.Aliases, tc.alias) || !slices.IsSorted(l.Aliases) {
			t.Errorf("Get(%q).Aliases = %v, want sorted and holding %q", tc.code, l.Aliases, tc.alias)
		}
	}
	// Results are copies.
	l, _ := tab.Get("pt_BR")
	l.Aliases[0] = "changed"
	if l2, _ := tab.Get("pt_BR"); l2.Aliases[0] == "changed" {
		t.Error("Get shares its Aliases slice with the table")
	}
}

func TestPopulation(t *testing.T) {
	t.Parallel()
	tab := Default()
	for _, code := range []string{"en", "de", "pt_BR", "zh_Hans"} {
		if l, _ := tab.Get(code); l.Population <= 0 {
			t.Errorf("Get(%q).Population = %d, want > 0", code, l.Population)
		}
	}
	// jbo is listed with 0; sgn is absent and has no regional entries.
	for _, code := range []string{"jbo", "sgn"} {
		if l, _ := tab.Get(code); l.Population != 0 {
			t.Errorf("Get(%q).Population = %d, want 0", code, l.Population)
		}
	}
}

func TestAll(t *testing.T) {
	t.Parallel()
	all := Default().All()
	if len(all) < 700 {
		t.Fatalf("All() has %d languages, want about 800", len(all))
	}
	ids := map[int64]bool{}
	for i, l := range all {
		if i > 0 && all[i-1].Code >= l.Code {
			t.Errorf("All() not sorted and unique at %d: %q then %q", i, all[i-1].Code, l.Code)
		}
		if l.Name == "" || (l.Direction != "ltr" && l.Direction != "rtl") || l.Plural.Number < 1 {
			t.Errorf("incomplete language %+v", l)
		}
		if l.Plural.ID <= 0 || ids[l.Plural.ID] {
			t.Errorf("%s: plural ID %d not positive and unique", l.Code, l.Plural.ID)
		}
		ids[l.Plural.ID] = true
		if l.Plural.Type == PluralUnknown {
			t.Errorf("%s: unknown plural family for %q", l.Code, l.Plural.Formula)
		}
	}
}

func TestParseBroken(t *testing.T) {
	t.Parallel()
	good := func() fstest.MapFS {
		m := fstest.MapFS{}
		for _, name := range []string{"languages.csv", "aliases.csv", "population.csv", "rtl.csv", "extraplurals.csv", "default_countries.csv"} {
			b, err := dataFS.ReadFile("data/" + name)
			if err != nil {
				t.Fatal(err)
			}
			m["data/"+name] = &fstest.MapFile{Data: b}
		}
		return m
	}
	if _, err := parse(good()); err != nil {
		t.Fatalf("parse(embedded data) = %v", err)
	}
	tests := map[string]struct{ file, data string }{
		"missing file":   {"rtl.csv", ""},
		"bad formula":    {"languages.csv", "code,name,nplurals,formula\nxx,X,2,n ? 1\n"},
		"bad nplurals":   {"languages.csv", "code,name,nplurals,formula\nxx,X,two,n != 1\n"},
		"duplicate code": {"languages.csv", "code,name,nplurals,formula\nxx,X,2,n != 1\nxx,Y,2,n != 1\n"},
		"bad alias":      {"aliases.csv", "source,target\nfoo,does_not_exist\n"},
		"bad population": {"population.csv", "code,population\nen,many\n"},
	}
	for name, tc := range tests {
		fsys := good()
		if tc.data == "" {
			delete(fsys, "data/"+tc.file)
		} else {
			fsys["data/"+tc.file] = &fstest.MapFile{Data: []byte(tc.data)}
		}
		if _, err := parse(fsys); err == nil {
			t.Errorf("%s: parse succeeded, want error", name)
		}
	}
}

func TestNotice(t *testing.T) {
	t.Parallel()
	n := Notice()
	if !strings.Contains(n, "WeblateOrg/language-data") || !strings.Contains(n, "MIT License") {
		t.Errorf("Notice() lacks attribution or license:\n%s", n)
	}
}

// TestCorpusCodes resolves every language code used as a file name in the
// shared corpus. Codes that are not canonical map as follows:
//
//	jellyfin-web: be-by → be, bg-bg → bg, hi-in → hi, is-is → is,
//	  lt-lt → lt, sl-si → sl (default country dropped, default_countries.csv);
//	  en-gb → en_GB, en-us → en_US, es-ar → es_AR, es-mx → es_MX,
//	  fr-ca → fr_CA, pt-br → pt_BR, pt-pt → pt_PT (case and dash);
//	  zh-cn → zh_Hans, zh-tw → zh_Hant, zh-hk → zh_Hant_HK, nb → nb_NO,
//	  pr → en@pirate (aliases.csv).
//	slicer glossary: sr_SP is in none of the files (SP is the withdrawn
//	  country code of Serbia and Montenegro). Resolve reports it unknown, as
//	  the reference does; Generate gives the language the reference creates
//	  for it, code sr_SP with Serbian's direction and plural rule.
func TestCorpusCodes(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..", "shared", "corpus")
	dirs := []struct{ dir, ext string }{
		{"jellyfin-web/src/strings", ".json"},
		{"kavita/UI/Web/src/assets/langs", ".json"},
		{"tbx/slicer/glossary", ".tbx"},
	}
	generated := map[string]string{"sr_SP": "sr_SP"}
	tab := Default()
	seen := 0
	for _, d := range dirs {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(d.dir)))
		if os.IsNotExist(err) {
			t.Skipf("corpus not present: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			code, ok := strings.CutSuffix(e.Name(), d.ext)
			if !ok || e.IsDir() {
				continue
			}
			seen++
			if want, ok := generated[code]; ok {
				if l, ok := tab.Resolve(code); ok {
					t.Errorf("%s/%s: Resolve = %s, documented as unknown; update the test", d.dir, e.Name(), l.Code)
				}
				if l, ok := tab.Generate(code); !ok || l.Code != want {
					t.Errorf("%s/%s: Generate = %q, %v; want %q", d.dir, e.Name(), l.Code, ok, want)
				}
				continue
			}
			if _, ok := tab.Resolve(code); !ok {
				t.Errorf("%s/%s: code %q does not resolve", d.dir, e.Name(), code)
			}
		}
	}
	if seen < 150 {
		t.Errorf("saw %d corpus files, want about 180", seen)
	}
}

func BenchmarkResolve(b *testing.B) {
	tab := Default()
	codes := []string{"de", "pt-br", "zh_CN", "nb", "lt-lt", "German", "xx_YY"}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range codes {
			_, ok := tab.Resolve(c)
			if ok == (c == "xx_YY") {
				b.Fatalf("Resolve(%q) = %v", c, ok)
			}
		}
	}
}
