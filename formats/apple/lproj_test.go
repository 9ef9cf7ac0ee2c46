package apple

import "testing"

func TestCodeFromLproj(t *testing.T) {
	tests := []struct {
		dir  string
		code string
		ok   bool
	}{
		{"zh-Hans.lproj", "zh_Hans", true},
		{"pt-BR", "pt_BR", true},
		{"Resources/hy-AM.lproj", "hy_AM", true},
		{"Resources/de.lproj/", "de", true},
		{"ckb.lproj", "ckb", true},
		{"English.lproj", "en", true},
		{"Base.lproj", "", false},
		{"base", "", false},
		{"", "", false},
		{".lproj", "", false},
		{"-x.lproj", "", false},
		{"de-.lproj", "", false},
		{"a b.lproj", "", false},
	}
	for _, tc := range tests {
		code, ok := CodeFromLproj(tc.dir)
		if code != tc.code || ok != tc.ok {
			t.Errorf("CodeFromLproj(%q) = %q, %v; want %q, %v", tc.dir, code, ok, tc.code, tc.ok)
		}
	}
}

func TestLproj(t *testing.T) {
	for code, want := range map[string]string{"zh_Hans": "zh-Hans.lproj", "pt_BR": "pt-BR.lproj", "de": "de.lproj", "sr_Latn_RS": "sr-Latn-RS.lproj"} {
		if got := Lproj(code); got != want {
			t.Errorf("Lproj(%q) = %q, want %q", code, got, want)
		}
		if back, ok := CodeFromLproj(want); !ok || back != code {
			t.Errorf("CodeFromLproj(Lproj(%q)) = %q, %v", code, back, ok)
		}
	}
}

// TestCorpusFolders reads every language folder of the corpus.
func TestCorpusFolders(t *testing.T) {
	names, _ := corpusFiles(t, ".strings")
	codes := map[string]bool{}
	for _, name := range names {
		code, ok := CodeFromLproj(name + ".lproj")
		if ok == (name == "Base") {
			t.Errorf("CodeFromLproj(%s.lproj) = %q, %v", name, code, ok)
		}
		codes[code] = true
	}
	for _, c := range []string{"zh_Hans", "hy_AM", "ku_TR", "en", "ckb"} {
		if !codes[c] {
			t.Errorf("no folder gave %s", c)
		}
	}
}
