package index_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tolk-project/tolk/index"
)

// TestUploadMerge checks the reference's merge rules unit by unit: which
// uploaded units are considered, which stored units are skipped and the
// state a written unit gets.
func TestUploadMerge(t *testing.T) {
	t.Parallel()
	in := func(target string, state index.State) index.ImportUnit {
		return index.ImportUnit{Target: []string{target}, State: state}
	}
	stored := func(target string, state index.State) index.Unit {
		return index.Unit{Source: []string{"S"}, Target: []string{target}, State: state}
	}
	const skip = index.State(-1)
	for _, tc := range []struct {
		name   string
		up     index.Upload
		in     index.ImportUnit
		stored index.Unit
		want   index.State // skip: considered but skipped; 0 with considered false: not considered
	}{
		{"empty upload", index.Upload{}, in("", index.StateEmpty), stored("", 0), 0},
		{"into empty", index.Upload{Method: index.UploadTranslate}, in("T", 20), stored("", 0), 20},
		{"into fuzzy", index.Upload{Method: index.UploadTranslate}, in("T", 20), stored("X", 10), 20},
		{"over translated", index.Upload{Method: index.UploadTranslate}, in("T", 20), stored("X", 20), skip},
		{"replace translated", index.Upload{Method: index.UploadTranslate, Conflicts: index.ConflictsReplaceTranslated},
			in("T", 20), stored("X", 20), 20},
		{"over approved", index.Upload{Method: index.UploadTranslate, Conflicts: index.ConflictsReplaceTranslated},
			in("T", 20), stored("X", 30), skip},
		{"replace approved", index.Upload{Method: index.UploadApprove, Conflicts: index.ConflictsReplaceApproved},
			in("T", 20), stored("X", 30), 30},
		{"read-only", index.Upload{Method: index.UploadTranslate, Conflicts: index.ConflictsReplaceApproved},
			in("T", 20), stored("X", 100), skip},
		{"same", index.Upload{Method: index.UploadFuzzy}, in("T", 20), stored("T", 10), skip},
		{"fuzzy method", index.Upload{Method: index.UploadFuzzy}, in("T", 20), stored("T", 0), 10},
		{"fuzzy skipped", index.Upload{Method: index.UploadTranslate}, in("T", 10), stored("", 0), 0},
		{"fuzzy processed", index.Upload{Method: index.UploadApprove, Fuzzy: index.FuzzyProcess}, in("T", 10), stored("", 0), 10},
		{"fuzzy approved", index.Upload{Method: index.UploadApprove, Fuzzy: index.FuzzyApprove}, in("T", 10), stored("", 0), 30},
		{"fuzzy as translated", index.Upload{Method: index.UploadTranslate, Fuzzy: index.FuzzyApprove}, in("T", 10), stored("", 0), 20},
	} {
		ok, fuzzy := tc.up.Considers(&tc.in)
		if !ok {
			if tc.want != 0 {
				t.Errorf("%s: not considered, want %d", tc.name, tc.want)
			}
			continue
		}
		ed, write := tc.up.MergeEdit(&tc.stored, &tc.in, fuzzy)
		switch {
		case !write && tc.want != skip:
			t.Errorf("%s: skipped, want state %d", tc.name, tc.want)
		case write && (ed.State != tc.want || ed.Target[0] != "T"):
			t.Errorf("%s: edit %+v, want state %d", tc.name, ed, tc.want)
		}
	}
}

// TestCheckUploadText checks an upload's refusal of a text: a 400 on
// "file" naming the string by its key, else by its source, shortened.
func TestCheckUploadText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 101)
	for _, tc := range []struct {
		name   string
		in     index.ImportUnit
		source []string
		want   string // the detail, "" when the text is fine
	}{
		{"fine", index.ImportUnit{Context: "k", Target: []string{"T"}}, []string{"S"}, ""},
		{"NUL", index.ImportUnit{Context: "greeting", Target: []string{"a\x00"}}, []string{"S"},
			`String "greeting": Null characters are not allowed.`},
		{"too long, named by source", index.ImportUnit{Source: []string{"Save"}, Target: []string{long}}, []string{"Save"},
			`String "Save": Translation text too long!`},
		{"a source string: the absolute cap only", index.ImportUnit{Context: "k", Target: []string{long}}, nil, ""},
		{"a long name", index.ImportUnit{Context: strings.Repeat("k", 70), Target: []string{"\x00"}}, nil,
			`String "` + strings.Repeat("k", 60) + `…": Null characters are not allowed.`},
	} {
		err := index.CheckUploadText(&tc.in, tc.in.Target, tc.source)
		var fe *index.FieldError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &fe) || fe.Fields["file"].Detail != tc.want):
			t.Errorf("%s: %v, want file: %s", tc.name, err, tc.want)
		}
	}
}
