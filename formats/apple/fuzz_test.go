package apple

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tolk-project/tolk/formats"
)

// seedLines returns the first n lines of each corpus file with the given
// extension: whole files stall the fuzzer's minimizer.
func seedLines(ext string, n int) [][]byte {
	paths, _ := filepath.Glob(filepath.Join(corpusRoot, "*.lproj", "Localizable"+ext))
	var seeds [][]byte
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || i%4 != 0 {
			continue
		}
		end := 0
		for range n {
			j := bytes.IndexByte(data[end:], '\n')
			if j < 0 {
				end = len(data)
				break
			}
			end += j + 1
		}
		seeds = append(seeds, data[:end])
	}
	return seeds
}

// checkParseError fails unless err is a *formats.ParseError with a position.
func checkParseError(t *testing.T, err error) {
	t.Helper()
	var pe *formats.ParseError
	if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
		t.Fatalf("error %T %v is not a *formats.ParseError with a position", err, err)
	}
}

// FuzzDecodeStrings checks that the .strings decoder never panics, fails
// only with a positioned *formats.ParseError, and that what it accepts
// round-trips byte for byte, takes an edit and an addition that read back,
// and loses exactly the removed unit.
func FuzzDecodeStrings(f *testing.F) {
	for _, s := range seedLines(".strings", 8) {
		f.Add(s)
	}
	for _, s := range []string{
		"", "/* c */\n// d\n\"k\" = \"v\";", `"a\"b" = "c\\d\n\U00e9\UD83D\UDE00\101";`, "k = v;\n\"Cancel\";",
		"\"a\" = \"1\";\n\n\"a\" = \"2\"; /* t */", "\xFF\xFE\"\x00k\x00\"\x00=\x00\"\x00v\x00\"\x00;\x00", "\"a\" = \"b\"", "/* open",
		"\xEF\xBB\xBF\"k\" = \"multi\nline\";",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		units, err := StringsUTF8.Decode(data, formats.File{})
		if err != nil {
			checkParseError(t, err)
			return
		}
		if out, err := StringsUTF8.Apply(data, formats.File{}, nil); err != nil || !bytes.Equal(out, data) {
			t.Fatalf("Apply without edits changed the input (err %v)", err)
		}
		if len(units) == 0 {
			return
		}
		u := units[0]
		val := "ed\"it\\ \n\t😀"
		out, err := StringsUTF8.Apply(data, formats.File{}, []formats.Edit{
			{Context: u.Context, Target: []string{val}},
			{Context: u.Context + "·new", Target: []string{"added"}},
		})
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		got, err := StringsUTF8.Decode(out, formats.File{})
		if err != nil {
			t.Fatalf("output does not decode: %v\n%q", err, out)
		}
		m := map[string]string{}
		for _, g := range got {
			m[g.Context] = g.Target[0]
		}
		if m[u.Context] != val || (m[u.Context+"·new"] != "added" && u.Context+"·new" != u.Context) {
			t.Fatalf("edits do not read back: %q\n%q", m, out)
		}
		for _, o := range units[1:] {
			if o.Context != u.Context && o.Context != u.Context+"·new" && m[o.Context] != o.Target[0] {
				t.Fatalf("unit %q changed from %q to %q\n%q", o.Context, o.Target[0], m[o.Context], out)
			}
		}
		rm, err := StringsUTF8.Remove(data, formats.File{}, []formats.Key{{Context: u.Context}})
		if err != nil {
			t.Fatalf("Remove: %v", err)
		}
		left, err := StringsUTF8.Decode(rm, formats.File{})
		if err != nil || len(left) != len(units)-1 {
			t.Fatalf("after Remove: %d units (%v), want %d\n%q", len(left), err, len(units)-1, rm)
		}
		if _, err := StringsUTF8.Emptied(data, formats.File{}); err != nil {
			t.Fatalf("Emptied: %v", err)
		}
	})
}

// FuzzDecodeStringsdict does the same for .stringsdict files.
func FuzzDecodeStringsdict(f *testing.F) {
	for _, s := range seedLines(".stringsdict", 60) {
		f.Add(append(append([]byte(nil), s...), "</dict></dict></plist>"...))
	}
	f.Add([]byte(small))
	f.Add([]byte(newDict))
	f.Add([]byte("<plist><dict><key>a</key><dict><key>NSStringLocalizedFormatKey</key><string/></dict></dict></plist>"))
	en := fileWith("one", "few", "other")
	f.Fuzz(func(t *testing.T, data []byte) {
		units, err := Stringsdict.Decode(data, en)
		if err != nil {
			checkParseError(t, err)
			return
		}
		if out, err := Stringsdict.Apply(data, en, nil); err != nil || !bytes.Equal(out, data) {
			t.Fatalf("Apply without edits changed the input (err %v)", err)
		}
		if len(units) == 0 {
			return
		}
		edits := []formats.Edit{{Context: "new:v", Target: []string{"a", "b & <c>", "d"}}}
		want := map[string][]string{"new:v": {"a", "b & <c>", "d"}}
		for _, u := range units {
			tg := make([]string, len(u.Target))
			for i := range tg {
				tg[i] = "x<&>" + u.Target[i]
			}
			edits = append(edits, formats.Edit{Context: u.Context, Target: tg})
			want[u.Context] = tg
		}
		out, err := Stringsdict.Apply(data, en, edits)
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		got, err := Stringsdict.Decode(out, en)
		if err != nil {
			t.Fatalf("output does not decode: %v\n%s", err, out)
		}
		for _, g := range got {
			if w, ok := want[g.Context]; ok && len(g.Target) == len(w) && g.Target[0] != w[0] && g.Context != "new" {
				t.Fatalf("%q reads back %q, want %q\n%s", g.Context, g.Target, w, out)
			}
		}
		if _, err := Stringsdict.Remove(data, en, []formats.Key{{Context: units[0].Context}}); err != nil {
			t.Fatalf("Remove: %v", err)
		}
		if _, err := Stringsdict.Emptied(data, en); err != nil {
			t.Fatalf("Emptied: %v", err)
		}
	})
}
