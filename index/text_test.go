package index

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckText walks the rule on a unit's text: NUL, UTF-8, the
// absolute cap for every text and the cap relative to the source for
// translations, at and just past each bound.
func TestCheckText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", MaxTextBytes)
	src := []string{strings.Repeat("s", 50)} // limit 500 characters
	for _, tc := range []struct {
		name    string
		forms   []string
		source  []string
		form    int
		problem FieldProblem // zero: ok
	}{
		{"plain", []string{"Hallo"}, []string{"Hello"}, 0, FieldProblem{}},
		{"empty", []string{""}, []string{"Hello"}, 0, FieldProblem{}},
		{"NUL", []string{"a\x00b"}, []string{"Hello"}, 0, NullCharacters},
		{"NUL in the second form", []string{"a", "\x00"}, []string{"file", "files"}, 1, NullCharacters},
		{"NUL in a source string", []string{"\x00"}, nil, 0, NullCharacters},
		{"invalid UTF-8", []string{"a\xffb"}, []string{"Hello"}, 0, InvalidText},
		{"100 characters for a short source", []string{strings.Repeat("ü", 100)}, []string{"Hi"}, 0, FieldProblem{}},
		{"101 characters for a short source", []string{strings.Repeat("ü", 101)}, []string{"Hi"}, 0, TextTooLong},
		{"ten times the source", []string{strings.Repeat("x", 500)}, src, 0, FieldProblem{}},
		{"past ten times the source", []string{strings.Repeat("x", 501)}, src, 0, TextTooLong},
		{"multi-byte characters count once", []string{strings.Repeat("語", 500)}, src, 0, FieldProblem{}},
		{"the longest source form is the measure", []string{"a", strings.Repeat("x", 300)},
			[]string{"one", strings.Repeat("m", 30)}, 0, FieldProblem{}},
		{"a plural form too long", []string{"a", strings.Repeat("x", 301)},
			[]string{"one", strings.Repeat("m", 30)}, 1, TextTooLong},
		{"source string at the absolute cap", []string{long}, nil, 0, FieldProblem{}},
		{"source string past the absolute cap", []string{long + "a"}, nil, 0, TextTooLong},
		{"translation of a huge source past the absolute cap", []string{long + "a"}, []string{long}, 0, TextTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form, p, ok := CheckText(tc.forms, tc.source)
			if want := tc.problem == (FieldProblem{}); ok != want || p != tc.problem || (!ok && form != tc.form) {
				t.Fatalf("CheckText = %d, %+v, %v; want %d, %+v", form, p, ok, tc.form, tc.problem)
			}
		})
	}
	var fe *FieldError
	if err := TextError("target", []string{"a", "\x00"}, []string{"s", "p"}); !errors.As(err, &fe) ||
		fe.Fields["target.1"] != NullCharacters || !errors.Is(err, ErrInvalid) {
		t.Errorf("TextError = %v, want target.1: %q", err, NullCharacters.Detail)
	}
	if err := TextError("target", []string{"a"}, []string{"s"}); err != nil {
		t.Errorf("TextError of a good text = %v", err)
	}
}

// TestUnitWritesCheckText checks that each write rule applies CheckText:
// a PATCH's target against the unit's source (a template's source string
// only against the absolute cap), and an added string's target and
// source.
func TestUnitWritesCheckText(t *testing.T) {
	t.Parallel()
	f := newRuleFixture()
	one := &Unit{Source: []string{"Hello"}, Target: []string{""}, State: StateEmpty}
	tmplUnit := &Unit{Source: []string{"a"}, Target: []string{"a"}, State: StateReadOnly}
	bi := f.de
	bi.Component.ManageUnits = true
	mono := f.tmpl
	mono.Component.ManageUnits = true
	over, huge := strings.Repeat("x", 101), strings.Repeat("x", MaxTextBytes+1)
	x := func(forms ...string) *[]string { return &forms }
	for _, tc := range []struct {
		name string
		run  func() error
		attr string
		want FieldProblem // zero: allowed
	}{
		{"PATCH with a NUL", func() error {
			_, err := CheckUnitPatch(f.admin, one, &f.de, UnitPatch{Target: x("a\x00"), State: ptr(StateTranslated)})
			return err
		}, "target.0", NullCharacters},
		{"PATCH too long for its source", func() error {
			_, err := CheckUnitPatch(f.admin, one, &f.de, UnitPatch{Target: x(over), State: ptr(StateTranslated)})
			return err
		}, "target.0", TextTooLong},
		{"PATCH of a template's string: only the absolute cap", func() error {
			_, err := CheckUnitPatch(f.admin, tmplUnit, &f.tmpl, UnitPatch{Target: x(over), State: ptr(StateTranslated)})
			return err
		}, "", FieldProblem{}},
		{"PATCH of a template's string past the absolute cap", func() error {
			_, err := CheckUnitPatch(f.admin, tmplUnit, &f.tmpl, UnitPatch{Target: x(huge), State: ptr(StateTranslated)})
			return err
		}, "target.0", TextTooLong},
		{"new string's target too long", func() error {
			_, err := ValidateNewUnit(f.admin, &bi, UnitAdd{Source: []string{"S"}, Target: x(over)})
			return err
		}, "target.0", TextTooLong},
		{"new source string past the absolute cap", func() error {
			_, err := ValidateNewUnit(f.admin, &mono, UnitAdd{Context: "k", Source: []string{huge}})
			return err
		}, "value.0", TextTooLong},
		{"new bilingual source past the absolute cap", func() error {
			_, err := ValidateNewUnit(f.admin, &bi, UnitAdd{Source: []string{huge}, Target: x("t")})
			return err
		}, "source.0", TextTooLong},
		{"new key past the absolute cap", func() error {
			_, err := ValidateNewUnit(f.admin, &mono, UnitAdd{Context: huge, Source: []string{"v"}})
			return err
		}, "key", TextTooLong},
		{"new source string of a short source, long: fine", func() error {
			_, err := ValidateNewUnit(f.admin, &mono, UnitAdd{Context: "k", Source: []string{over}})
			return err
		}, "", FieldProblem{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if tc.want == (FieldProblem{}) {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Fields[tc.attr] != tc.want {
				t.Fatalf("err = %v, want %s: %+v", err, tc.attr, tc.want)
			}
		})
	}
}
