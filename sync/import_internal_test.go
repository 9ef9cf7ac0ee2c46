package sync

import (
	"testing"

	"github.com/tolk-project/tolk/formats"
	"github.com/tolk-project/tolk/index"
)

// TestStateOf checks the state a unit gets from what its file says: a
// read-only flag and an empty target first, then the format's fuzzy and
// approved marks, approved only where review is on.
func TestStateOf(t *testing.T) {
	done := []string{"Fertig"}
	for _, tc := range []struct {
		name   string
		u      formats.Unit
		review bool
		want   index.State
	}{
		{"translated", formats.Unit{Target: done}, false, index.StateTranslated},
		{"empty", formats.Unit{Target: []string{""}}, false, index.StateEmpty},
		{"no target", formats.Unit{}, false, index.StateEmpty},
		{"plural half done", formats.Unit{Target: []string{"", "x"}}, false, index.StateTranslated},
		{"read-only", formats.Unit{Target: []string{""}, Flags: []string{"forbidden", "read-only"}}, true, index.StateReadOnly},
		{"fuzzy", formats.Unit{Target: done, Fuzzy: true}, true, index.StateFuzzy},
		{"fuzzy but empty", formats.Unit{Target: []string{""}, Fuzzy: true}, true, index.StateEmpty},
		{"approved with review", formats.Unit{Target: done, Approved: true}, true, index.StateApproved},
		{"approved without review", formats.Unit{Target: done, Approved: true}, false, index.StateTranslated},
		{"approved and fuzzy", formats.Unit{Target: done, Approved: true, Fuzzy: true}, true, index.StateFuzzy},
	} {
		if got := stateOf(tc.u, tc.review); got != tc.want {
			t.Errorf("%s: stateOf = %d, want %d", tc.name, got, tc.want)
		}
	}
	iu := importUnit(formats.Unit{Context: "k", Target: done, Location: "src/a.c:12, src/b.c:3", Approved: true}, true)
	if iu.Location != "src/a.c:12, src/b.c:3" || iu.State != index.StateApproved {
		t.Errorf("importUnit = %+v: location or state lost", iu)
	}
}

// TestRenderSource checks that render hands the codec each unit's
// source: TBX adds a term the file lacks from the edit's source, which a
// lost Source would leave empty.
func TestRenderSource(t *testing.T) {
	c := &index.Component{FileFormat: "tbx", SourceLanguage: "en"}
	f := formats.File{Source: formats.Language{Code: "en"}, Target: formats.Language{Code: "de"}}
	out, err := render(c, nil, f, []index.Unit{{Context: "", Source: []string{"file"}, Target: []string{"Datei"},
		State: index.StateFuzzy}})
	if err != nil {
		t.Fatal(err)
	}
	codec, _ := codecOf(c)
	units, err := codec.Decode(out, f)
	if err != nil || len(units) != 1 || units[0].Source[0] != "file" || units[0].Target[0] != "Datei" {
		t.Errorf("rendered %+v, %v:\n%s", units, err, out)
	}
	if _, err := render(&index.Component{FileFormat: "nope"}, nil, f, nil); err == nil {
		t.Error("render of an unknown format: no error")
	}
}
