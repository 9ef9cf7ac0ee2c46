package index

import (
	"errors"
	"slices"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// ruleFixture is a German translation of a bilingual component, its
// source translation and a monolingual template, with users of each role.
type ruleFixture struct {
	de, src, tmpl Translation
	translator    *Principal
	reviewer      *Principal
	admin         *Principal
	nobody        *Principal
}

func newRuleFixture() ruleFixture {
	p := Project{ID: 7, Slug: "p"}
	c := Component{ID: 3, ProjectID: 7, Project: p}
	mono := c
	mono.Template, mono.EditTemplate = "en.json", true
	user := func(role string) *Principal {
		return &Principal{User: &User{ID: 1, IsActive: true}, Grants: []Grant{{UserID: 1, Role: role, ProjectID: 7}}}
	}
	return ruleFixture{
		de:         Translation{ID: 2, Component: c, LanguageCode: "de", Language: Language{Plural: Plural{Number: 2}}},
		src:        Translation{ID: 1, Component: c, LanguageCode: "en", IsSource: true},
		tmpl:       Translation{ID: 4, Component: mono, LanguageCode: "en", IsSource: true, IsTemplate: true},
		translator: user("Translate"), reviewer: user("Review strings"), admin: user("Administration"),
		nobody: &Principal{User: &User{ID: 2, IsActive: true}},
	}
}

// TestCheckUnitPatchOrder walks the reference's checks in order: each
// case fails exactly one, and earlier checks win over later ones.
func TestCheckUnitPatchOrder(t *testing.T) {
	f := newRuleFixture()
	reviewed := f.de
	reviewed.Component.Project.TranslationReview = true
	locked := f.de
	locked.Component.Locked = true
	one := &Unit{Source: []string{"Hello"}, Target: []string{""}, State: StateEmpty}
	plural := &Unit{Source: []string{"file", "files"}, Target: []string{"", ""}}
	approved := &Unit{Source: []string{"Hello"}, Target: []string{"Hallo"}, State: StateApproved}
	x := func(forms ...string) *[]string { return &forms }
	cases := []struct {
		name    string
		who     *Principal
		u       *Unit
		t       Translation
		p       UnitPatch
		kind    error
		attr    string // the FieldError attribute, or ""
		message string
	}{
		{"source property on a translation", f.admin, one, f.de, UnitPatch{Explanation: ptr("e"), Target: x("a", "b")},
			ErrPermission, "", msgSourceProps},
		{"source property without source.edit", f.translator, one, f.src, UnitPatch{ExtraFlags: ptr("")},
			ErrPermission, "", msgSourceProps},
		{"plural count", f.admin, one, f.de, UnitPatch{Target: x("a", "b"), State: ptr(StateTranslated)},
			ErrInvalid, "target", "Number of plurals does not match"},
		{"plural count of a plural", f.admin, plural, f.de, UnitPatch{Target: x("a"), State: ptr(StateTranslated)},
			ErrInvalid, "target", "Number of plurals does not match"},
		{"bilingual source is read-only", f.admin, one, f.src, UnitPatch{Target: x("a"), State: ptr(StateTranslated)},
			ErrPermission, "", msgReadOnly},
		{"read-only state", f.admin, &Unit{Source: []string{"a"}, State: StateReadOnly}, f.de,
			UnitPatch{Target: x("a"), State: ptr(StateTranslated)}, ErrPermission, "", msgReadOnly},
		{"read-only flag", f.admin, &Unit{Source: []string{"a"}, Flags: "max-length:3, read-only"}, f.de,
			UnitPatch{Target: x("a"), State: ptr(StateTranslated)}, ErrPermission, "", msgReadOnly},
		{"state missing", f.admin, one, f.de, UnitPatch{Target: x("a")}, ErrInvalid, "state", msgBothFields},
		{"target missing", f.admin, one, f.de, UnitPatch{State: ptr(StateTranslated)}, ErrInvalid, "target", msgBothFields},
		{"needs rewriting", f.admin, one, f.de, UnitPatch{Target: x("a"), State: ptr(State(11))},
			ErrInvalid, "state", "This state cannot be set manually."},
		{"read-only asked", f.admin, one, f.de, UnitPatch{Target: x("a"), State: ptr(StateReadOnly)},
			ErrInvalid, "state", "Invalid state"},
		{"empty state, text", f.admin, one, f.de, UnitPatch{Target: x("a"), State: ptr(StateEmpty)},
			ErrInvalid, "state", "Can not use empty state with non empty target"},
		{"text state, no text", f.admin, one, f.de, UnitPatch{Target: x(""), State: ptr(StateFuzzy)},
			ErrInvalid, "state", "Can not use non empty state with empty target"},
		{"no role", f.nobody, one, f.de, UnitPatch{Target: x("a"), State: ptr(StateTranslated)},
			ErrPermission, "", msgNoPrivileges},
		{"locked", f.admin, one, locked, UnitPatch{Target: x("a"), State: ptr(StateTranslated)},
			ErrPermission, "", msgLocked},
		{"locked source property", f.admin, one, func() Translation { t := f.src; t.Component.Locked = true; return t }(),
			UnitPatch{Explanation: ptr("e")}, ErrPermission, "", msgLocked},
		{"approved, not a reviewer", f.translator, approved, reviewed, UnitPatch{Target: x("a"), State: ptr(StateTranslated)},
			ErrPermission, "", msgApprovedOnly},
		{"approve without review", f.admin, one, f.de, UnitPatch{Target: x("a"), State: ptr(StateApproved)},
			ErrInvalid, "state", "Translation reviews are turned off."},
		{"approve as translator", f.translator, one, reviewed, UnitPatch{Target: x("a"), State: ptr(StateApproved)},
			ErrInvalid, "state", msgNoReview},
		{"template without edit_template", f.admin, &Unit{Source: []string{"a"}, State: StateReadOnly},
			func() Translation { t := f.tmpl; t.Component.EditTemplate = false; return t }(),
			UnitPatch{Target: x("b"), State: ptr(StateTranslated)}, ErrPermission, "", msgReadOnly},
		{"template without unit.template", f.translator, &Unit{Source: []string{"a"}, State: StateReadOnly}, f.tmpl,
			UnitPatch{Target: x("b"), State: ptr(StateTranslated)}, ErrPermission, "", msgNoTemplate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckUnitPatch(tc.who, tc.u, &tc.t, tc.p)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want kind %v", err, tc.kind)
			}
			var fe *FieldError
			if errors.As(err, &fe) {
				if p, ok := fe.Fields[tc.attr]; !ok || p.Detail != tc.message {
					t.Fatalf("fields = %+v, want %s: %q", fe.Fields, tc.attr, tc.message)
				}
				return
			}
			if ErrorMessage(err) != tc.message || tc.attr != "" {
				t.Fatalf("message = %q, want %q", ErrorMessage(err), tc.message)
			}
		})
	}
}

func TestCheckUnitPatchAllowed(t *testing.T) {
	f := newRuleFixture()
	reviewed := f.de
	reviewed.Component.Project.TranslationReview = true
	one := &Unit{Source: []string{"Hello"}, Target: []string{"Hallo"}, State: StateApproved}
	upd, err := CheckUnitPatch(f.reviewer, one, &reviewed, UnitPatch{Target: &[]string{"Servus"}, State: ptr(StateApproved)})
	if err != nil || upd.Edit == nil || upd.Edit.State != StateApproved || !slices.Equal(upd.Edit.Target, []string{"Servus"}) {
		t.Fatalf("reviewer: %+v, %v", upd, err)
	}
	// A template's source string keeps its read-only state whatever the
	// client names: it is a source string.
	tmplUnit := &Unit{Source: []string{"a"}, Target: []string{"a"}, State: StateReadOnly}
	upd, err = CheckUnitPatch(f.admin, tmplUnit, &f.tmpl, UnitPatch{Target: &[]string{"b"}, State: ptr(StateTranslated)})
	if err != nil || upd.Edit.State != StateReadOnly || upd.Edit.Target[0] != "b" {
		t.Fatalf("template: %+v, %v", upd.Edit, err)
	}
	// With source review on, the template's strings take review states:
	// a reviewer approves, anyone who may edit them unapproves or marks
	// them; a translator may not approve (a 400 on state).
	srcReview := f.tmpl
	srcReview.Component.Project.SourceReview = true
	// Editing a template's strings at all needs unit.template ("Manage
	// strings") besides, as the reference's check_can_edit.
	roles := func(names ...string) *Principal {
		p := &Principal{User: &User{ID: 1, IsActive: true}}
		for _, n := range names {
			p.Grants = append(p.Grants, Grant{UserID: 1, Role: n, ProjectID: 7})
		}
		return p
	}
	reviewer := roles("Review strings", "Manage strings")
	for _, tc := range []struct {
		name string
		who  *Principal
		from State
		to   State
	}{
		{"approve", reviewer, StateReadOnly, StateApproved},
		{"unapprove", reviewer, StateApproved, StateTranslated},
		{"needs editing", f.admin, StateReadOnly, StateFuzzy},
		{"edit, waiting for review", f.admin, StateReadOnly, StateTranslated},
	} {
		u := &Unit{Source: []string{"a"}, Target: []string{"a"}, State: tc.from}
		upd, err := CheckUnitPatch(tc.who, u, &srcReview, UnitPatch{Target: &[]string{"a"}, State: ptr(tc.to)})
		if err != nil || upd.Edit == nil || upd.Edit.State != tc.to {
			t.Errorf("source review, %s: %+v, %v", tc.name, upd.Edit, err)
		}
	}
	_, err = CheckUnitPatch(roles("Translate", "Manage strings"), &Unit{Source: []string{"a"}, Target: []string{"a"}, State: StateReadOnly}, &srcReview,
		UnitPatch{Target: &[]string{"a"}, State: ptr(StateApproved)})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Fields["state"].Detail == "" {
		t.Errorf("a translator approving a source string: %v, want a 400 on state", err)
	}
	// Source properties alone touch nothing else.
	upd, err = CheckUnitPatch(f.admin, tmplUnit, &f.tmpl, UnitPatch{Explanation: ptr("why")})
	if err != nil || upd.Edit != nil || *upd.Explanation != "why" || upd.ExtraFlags != nil {
		t.Fatalf("explanation: %+v, %v", upd, err)
	}
}

func TestUnitAddRules(t *testing.T) {
	f := newRuleFixture()
	mono := f.tmpl
	mono.Component.ManageUnits = true
	monoDE := mono
	monoDE.IsSource, monoDE.IsTemplate, monoDE.LanguageCode = false, false, "de"
	bi := f.de
	bi.Component.ManageUnits = true
	for _, tc := range []struct {
		name    string
		who     *Principal
		t       Translation
		message string
	}{
		{"monolingual translation", f.admin, monoDE, msgSourceLanguage},
		{"manage_units off", f.admin, f.de, msgUnitsDisabled},
		{"edit_template off", f.admin, func() Translation { t := mono; t.Component.EditTemplate = false; return t }(), msgBaseFileOff},
		{"translator", f.translator, bi, msgNoPrivileges},
		{"superuser in a monolingual translation", &Principal{User: &User{IsActive: true, IsSuperuser: true}}, monoDE, msgSourceLanguage},
	} {
		if err := CheckAddUnit(tc.who, &tc.t); !errors.Is(err, ErrPermission) || ErrorMessage(err) != tc.message {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.message)
		}
	}
	if err := CheckAddUnit(f.admin, &mono); err != nil {
		t.Errorf("admin on the template: %v", err)
	}

	for _, tc := range []struct {
		name   string
		t      Translation
		a      UnitAdd
		want   NewUnit
		attr   string
		reason string
	}{
		{"source", mono, UnitAdd{Context: "k", Source: []string{"V"}}, NewUnit{"k", []string{"V"}, []string{"V"}, StateReadOnly}, "", ""},
		{"target translated", bi, UnitAdd{Source: []string{"S"}, Target: &[]string{"T"}}, NewUnit{"", []string{"S"}, []string{"T"}, StateTranslated}, "", ""},
		{"no target", bi, UnitAdd{Source: []string{"S"}, Target: &[]string{""}, State: ptr(StateFuzzy)}, NewUnit{"", []string{"S"}, []string{""}, StateEmpty}, "", ""},
		{"needs checking is needs editing", bi, UnitAdd{Source: []string{"S"}, Target: &[]string{"T"}, State: ptr(State(12))}, NewUnit{"", []string{"S"}, []string{"T"}, StateFuzzy}, "", ""},
		{"empty state, text", bi, UnitAdd{Source: []string{"S"}, Target: &[]string{""}, State: ptr(StateEmpty)}, NewUnit{}, "non_field_errors", "Empty state is supported for blank strings only."},
		{"blank, translated", bi, UnitAdd{Source: []string{""}, State: ptr(StateTranslated)}, NewUnit{}, "non_field_errors", "Blank strings require an empty state."},
		{"approved without review", bi, UnitAdd{Source: []string{"S"}, Target: &[]string{"T"}, State: ptr(StateApproved)}, NewUnit{}, "state", "Approved state is not available as reviews are not enabled."},
		{"control character", bi, UnitAdd{Context: "a\x01", Source: []string{"S"}}, NewUnit{}, "non_field_errors", `String contains control character: '\x01'`},
	} {
		got, err := ValidateNewUnit(f.admin, &tc.t, tc.a)
		if tc.attr != "" {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Fields[tc.attr].Detail != tc.reason {
				t.Errorf("%s: %v, want %s: %q", tc.name, err, tc.attr, tc.reason)
			}
			continue
		}
		if err != nil || got.Context != tc.want.Context || got.State != tc.want.State ||
			!slices.Equal(got.Source, tc.want.Source) || !slices.Equal(got.Target, tc.want.Target) {
			t.Errorf("%s: %+v, %v, want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestCheckDeleteUnit(t *testing.T) {
	f := newRuleFixture()
	glossary := f.de
	glossary.Component.ManageUnits, glossary.Component.IsGlossary = true, true
	term := &Unit{Flags: "terminology"}
	if err := CheckDeleteUnit(f.admin, term, &glossary); ErrorMessage(err) != msgTerminology {
		t.Errorf("terminology: %v", err)
	}
	if err := CheckDeleteUnit(f.translator, &Unit{}, &glossary); ErrorMessage(err) != msgNoPrivileges {
		t.Errorf("translator: %v", err)
	}
	if err := CheckDeleteUnit(f.admin, &Unit{}, &glossary); err != nil {
		t.Errorf("admin: %v", err)
	}
}

// TestReviewRules walks who may approve, and who may edit an approved
// string, over the review settings: one decision (ReviewDenied,
// CheckUnitEdit) that the API, the editor and uploads share.
func TestReviewRules(t *testing.T) {
	f := newRuleFixture()
	on := f.de
	on.Component.Project.TranslationReview = true
	srcOn := f.tmpl
	srcOn.Component.Project.SourceReview = true
	bilingualSrcOn := f.src
	bilingualSrcOn.Component.Project.SourceReview = true
	// Source review alone leaves translations' reviews off, and the
	// other way round.
	srcOnly := f.de
	srcOnly.Component.Project.SourceReview = true
	lockedOn := on
	lockedOn.Component.Locked = true
	for _, tc := range []struct {
		name string
		who  *Principal
		t    Translation
		want string
	}{
		{"reviews off", f.reviewer, f.de, msgReviewOff},
		{"source review only", f.reviewer, srcOnly, msgReviewOff},
		{"source reviews off", f.admin, f.tmpl, msgSourceReviewOff},
		{"reviewer", f.reviewer, on, ""},
		{"administrator", f.admin, on, ""},
		{"translator", f.translator, on, msgNoReview},
		{"no role", f.nobody, on, msgNoReview},
		{"locked", f.reviewer, lockedOn, msgLocked},
		{"template, source review on", f.admin, srcOn, ""},
		{"bilingual source, source review on", f.admin, bilingualSrcOn, msgReadOnlyTrans},
	} {
		if got := ReviewDenied(tc.who, &tc.t); got != tc.want {
			t.Errorf("%s: ReviewDenied = %q, want %q", tc.name, got, tc.want)
		}
	}

	approved := &Unit{Source: []string{"Hello"}, Target: []string{"Hallo"}, State: StateApproved}
	translated := &Unit{Source: []string{"Hello"}, Target: []string{"Hallo"}, State: StateTranslated}
	noSuggestions := on
	noSuggestions.Component.EnableSuggestions = false
	withSuggestions := on
	withSuggestions.Component.EnableSuggestions = true
	for _, tc := range []struct {
		name string
		who  *Principal
		u    *Unit
		t    Translation
		want string
	}{
		{"approved, review off: the rule is dropped", f.translator, approved, f.de, ""},
		{"approved, review on, translator", f.translator, approved, withSuggestions, msgApprovedOnly + msgAddSuggestion},
		{"approved, no suggestions: not told to add one", f.translator, approved, noSuggestions, msgApprovedOnly},
		{"approved, review on, reviewer", f.reviewer, approved, on, ""},
		{"translated, review on, translator", f.translator, translated, on, ""},
		{"approved, locked", f.reviewer, approved, lockedOn, msgLocked},
		{"no role", f.nobody, translated, on, msgNoPrivileges},
	} {
		got := ""
		if err := CheckUnitEdit(tc.who, tc.u, &tc.t); err != nil {
			if !errors.Is(err, ErrPermission) {
				t.Errorf("%s: %v is not a permission error", tc.name, err)
			}
			got = ErrorMessage(err)
		}
		if got != tc.want {
			t.Errorf("%s: CheckUnitEdit = %q, want %q", tc.name, got, tc.want)
		}
	}
}
