package checks

import (
	"slices"
	"testing"
)

// Plural formulas from languages.csv, written out in Go.
var (
	pluralEn = func(n int64) int { return b2i(n != 1) }
	pluralCs = func(n int64) int {
		switch {
		case n == 1:
			return 0
		case n >= 2 && n <= 4:
			return 1
		}
		return 2
	}
	pluralRu = func(n int64) int {
		switch {
		case n%10 == 1 && n%100 != 11:
			return 0
		case n%10 >= 2 && n%10 <= 4 && (n%100 < 12 || n%100 > 14):
			return 1
		}
		return 2
	}
	pluralAr = func(n int64) int {
		switch {
		case n == 0:
			return 0
		case n == 1:
			return 1
		case n == 2:
			return 2
		case n%100 >= 3 && n%100 <= 10:
			return 3
		case n%100 >= 11 && n%100 <= 99:
			return 4
		}
		return 5
	}
	pluralJa = func(int64) int { return 0 }
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNewPluralMap checks the pairing against Weblate's PluralMapperTestCase
// (english_czech: target_map ((0, None), (None, None), (-1, None))).
func TestNewPluralMap(t *testing.T) {
	tests := []struct {
		name       string
		srcN       int
		src        func(int64) int
		tgtN       int
		tgt        func(int64) int
		wantSource []int
		wantSingle []bool
	}{
		{"en→cs", 2, pluralEn, 3, pluralCs, []int{0, 1, 1}, []bool{true, false, false}},
		{"cs→en", 3, pluralCs, 2, pluralEn, []int{0, 2}, []bool{true, false}},
		{"en→en", 2, pluralEn, 2, pluralEn, []int{0, 1}, []bool{true, false}},
		{"en→ja", 2, pluralEn, 1, pluralJa, []int{1}, []bool{false}},
		{"en→ar", 2, pluralEn, 6, pluralAr, []int{1, 0, 1, 1, 1, 1}, []bool{true, true, true, false, false, false}},
		{"en→ru", 2, pluralEn, 3, pluralRu, []int{1, 1, 1}, []bool{false, false, false}},
	}
	for _, tt := range tests {
		m := NewPluralMap(tt.srcN, tt.src, tt.tgtN, tt.tgt)
		if m == nil || !slices.Equal(m.Source, tt.wantSource) || !slices.Equal(m.Single, tt.wantSingle) || m.SourceForms != tt.srcN {
			t.Errorf("%s: got %+v, want source %v single %v", tt.name, m, tt.wantSource, tt.wantSingle)
		}
	}
	if NewPluralMap(2, nil, 3, pluralCs) != nil || NewPluralMap(0, pluralEn, 3, pluralCs) != nil {
		t.Error("NewPluralMap accepts a missing formula")
	}
	// A formula returning out-of-range forms does not panic.
	if m := NewPluralMap(2, func(n int64) int { return int(n) }, 2, pluralEn); m == nil {
		t.Error("hostile formula gave nil")
	}
}

// TestPluralPairing runs whole units through Run with plural data. The
// source's singular ends with a stop and its plural does not, so a target
// form paired with the wrong source form fails end_stop.
func TestPluralPairing(t *testing.T) {
	en := []string{"one", "other"}
	src := []string{"Deleted one file.", "Deleted %d files"}
	tests := []struct {
		name     string
		tgt      []string
		lang     string
		srcCats  []string
		tgtCats  []string
		pm       *PluralMap
		flags    string
		want     []string
		wantPrev []string // without plural data, to show what changed
	}{
		{name: "cs categories", lang: "cs", srcCats: en, tgtCats: []string{"one", "few", "other"},
			tgt:      []string{"Smazán jeden soubor.", "Smazány %d soubory", "Smazáno %d souborů"},
			wantPrev: []string{"end_stop"}},
		{name: "cs four categories", lang: "cs", srcCats: en, tgtCats: []string{"one", "few", "many", "other"},
			tgt:      []string{"Smazán jeden soubor.", "Smazány %d soubory", "Smazáno %d souboru", "Smazáno %d souborů"},
			wantPrev: []string{"end_stop"}},
		{name: "cs plural map", lang: "cs", pm: NewPluralMap(2, pluralEn, 3, pluralCs),
			tgt:      []string{"Smazán jeden soubor.", "Smazány %d soubory", "Smazáno %d souborů"},
			wantPrev: []string{"end_stop"}},
		{name: "cs wrong pairing caught", lang: "cs", srcCats: en, tgtCats: []string{"one", "few", "other"},
			tgt:  []string{"Smazán jeden soubor", "Smazány %d soubory", "Smazáno %d souborů."},
			want: []string{"end_stop"}, wantPrev: []string{"end_stop"}},
		{name: "ja other pairs with other", lang: "ja", srcCats: en, tgtCats: []string{"other"},
			tgt: []string{"%d 個のファイルを削除しました"}},
		{name: "ar six forms", lang: "ar", srcCats: en, tgtCats: []string{"zero", "one", "two", "few", "many", "other"},
			tgt:      []string{"لم يحذف أي ملف", "حذف ملف واحد.", "حذف ملفين", "حذف %d ملفات", "حذف %d ملفًا", "حذف %d ملف"},
			wantPrev: []string{"end_stop"}},
		{name: "ar plural map", lang: "ar", pm: NewPluralMap(2, pluralEn, 6, pluralAr),
			tgt:      []string{"لم يحذف أي ملف", "حذف ملف واحد.", "حذف ملفين", "حذف %d ملفات", "حذف %d ملفًا", "حذف %d ملف"},
			wantPrev: []string{"end_stop"}},
		{name: "counts off the language's: last source form", lang: "cs", srcCats: en, tgtCats: []string{"one", "few", "other"},
			tgt:  []string{"Smazán jeden soubor.", "Smazáno %d souborů"},
			want: []string{"end_stop"}}, // without data the two forms pair one to one
		// WeblateOrg/weblate#8382 and #8383: every form was checked against
		// the first source form. Chinese and Hungarian (koreader) must pass.
		{name: "#8383 zh_Hans", lang: "zh_Hans", srcCats: en, tgtCats: []string{"other"},
			tgt: []string{"已删除 %d 个文件"}, flags: "c-format"},
		{name: "#8382 hu", lang: "hu", srcCats: en, tgtCats: en,
			tgt: []string{"Egy fájl törölve.", "%d fájl törölve"}, flags: "c-format"},
		// The one form may omit the count when it stands for 1 only.
		{name: "cs one omits %d", lang: "cs", srcCats: en, tgtCats: []string{"one", "few", "other"}, flags: "c-format",
			tgt:      []string{"Smazán jeden soubor.", "Smazány %d soubory", "Smazáno %d souborů"},
			wantPrev: []string{"end_stop"}},
		// Russian "one" is also used for 21: with the exact map it pairs
		// with "other" and must keep %d, as in Weblate.
		{name: "ru one must keep %d", lang: "ru", pm: NewPluralMap(2, pluralEn, 3, pluralRu), flags: "c-format",
			tgt:  []string{"Удалён один файл", "Удалено %d файла", "Удалено %d файлов"},
			want: []string{"c_format"}}, // without data the first form may omit
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := Unit{Source: src, Target: tt.tgt, Language: tt.lang, Flags: mustFlags(t, tt.flags),
				SourcePlurals: tt.srcCats, TargetPlurals: tt.tgtCats, PluralMap: tt.pm}
			if got := ids(Run(u)); !slices.Equal(got, tt.want) {
				t.Errorf("with plural data: got %q, want %q", got, tt.want)
			}
			u.SourcePlurals, u.TargetPlurals, u.PluralMap = nil, nil, nil
			if got := ids(Run(u)); !slices.Equal(got, tt.wantPrev) {
				t.Errorf("without plural data: got %q, want %q", got, tt.wantPrev)
			}
		})
	}
}
