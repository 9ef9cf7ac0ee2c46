package checks

import "testing"

func TestIsInconsistent(t *testing.T) {
	same := SameSource{Target: []string{"Hallo"}, Translated: true}
	other := SameSource{Target: []string{"Servus"}, Translated: true}
	empty := SameSource{Target: []string{""}}
	ignore, _ := ParseFlags("ignore-inconsistent")
	for _, tc := range []struct {
		name       string
		target     string
		translated bool
		flags      Flags
		others     []SameSource
		want       bool
	}{
		{"alone", "Hallo", true, Flags{}, nil, false},
		{"same elsewhere", "Hallo", true, Flags{}, []SameSource{same}, false},
		{"translated differently", "Hallo", true, Flags{}, []SameSource{same, other}, true},
		{"untranslated elsewhere", "Hallo", true, Flags{}, []SameSource{empty}, true},
		{"untranslated here, translated there", "", false, Flags{}, []SameSource{same}, true},
		{"untranslated both", "", false, Flags{}, []SameSource{empty}, false},
		{"fuzzy both, different", "Hallo", false, Flags{}, []SameSource{{Target: []string{"Servus"}}}, false},
		{"ignored", "Hallo", true, ignore, []SameSource{other}, false},
	} {
		if got := IsInconsistent([]string{tc.target}, tc.translated, tc.flags, tc.others); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
